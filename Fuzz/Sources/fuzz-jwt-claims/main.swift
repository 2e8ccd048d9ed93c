import FuzzSupport
@_spi(Fuzzing) import SessionVault

// libFuzzer target `jwt-claims`: see `FuzzTarget.jwtClaims` for the input and the properties checked.
FuzzRun.run(target: "jwt-claims", FuzzTarget.jwtClaims)
