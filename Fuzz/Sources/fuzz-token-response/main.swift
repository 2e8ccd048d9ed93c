import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `token-response`: see `FuzzTarget.tokenResponse` for the input and the properties checked.
FuzzRun.start(target: "token-response")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.tokenResponse(FuzzRun.bytes(data, size)))
    return 0
})
