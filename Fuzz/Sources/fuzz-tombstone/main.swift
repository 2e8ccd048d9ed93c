import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `tombstone`: see `FuzzTarget.tombstone` for the input and the properties checked.
FuzzRun.start(target: "tombstone")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.tombstone(FuzzRun.bytes(data, size)))
    return 0
})
