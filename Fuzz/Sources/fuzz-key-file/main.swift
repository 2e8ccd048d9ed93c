import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `key-file`: see `FuzzTarget.keyFile` for the input and the properties checked.
FuzzRun.start(target: "key-file")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.keyFile(FuzzRun.bytes(data, size)))
    return 0
})
