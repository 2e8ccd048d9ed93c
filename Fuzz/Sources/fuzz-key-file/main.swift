import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `key-file`: see `FuzzTarget.keyFile` for the input and the properties checked.
FuzzRun.run(target: "key-file", FuzzTarget.keyFile)
