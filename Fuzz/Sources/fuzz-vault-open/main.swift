import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `vault-open`: see `FuzzTarget.vaultOpen` for the input and the properties checked.
FuzzRun.run(target: "vault-open", FuzzTarget.vaultOpen)
