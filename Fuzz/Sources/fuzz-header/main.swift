import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `header`: see `FuzzTarget.header` for the input and the properties checked.
FuzzRun.start(target: "header")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.header(FuzzRun.bytes(data, size)))
    return 0
})
