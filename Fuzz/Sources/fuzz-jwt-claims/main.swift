import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `jwt-claims`: see `FuzzTarget.jwtClaims` for the input and the properties checked.
FuzzRun.start(target: "jwt-claims")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.jwtClaims(FuzzRun.bytes(data, size)))
    return 0
})
