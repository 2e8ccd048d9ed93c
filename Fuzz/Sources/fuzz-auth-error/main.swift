import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `auth-error`: see `FuzzTarget.authError` for the input and the properties checked.
FuzzRun.run(target: "auth-error", FuzzTarget.authError)
