import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `token-response`: see `FuzzTarget.tokenResponse` for the input and the properties checked.
FuzzRun.run(target: "token-response", FuzzTarget.tokenResponse)
