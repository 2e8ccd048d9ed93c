import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `tombstone`: see `FuzzTarget.tombstone` for the input and the properties checked.
FuzzRun.run(target: "tombstone", FuzzTarget.tombstone)
