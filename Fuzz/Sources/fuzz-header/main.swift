import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `header`: see `FuzzTarget.header` for the input and the properties checked.
FuzzRun.run(target: "header", FuzzTarget.header)
