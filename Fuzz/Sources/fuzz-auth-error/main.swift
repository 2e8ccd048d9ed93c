import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `auth-error`: see `FuzzTarget.authError` for the input and the properties checked.
FuzzRun.start(target: "auth-error")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.authError(FuzzRun.bytes(data, size)))
    return 0
})
