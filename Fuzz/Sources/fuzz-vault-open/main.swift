import CFuzzer
import FuzzSupport
import Foundation
@_spi(Fuzzing) import SessionVault

// libFuzzer target `vault-open`: see `FuzzTarget.vaultOpen` for the input and the properties checked.
FuzzRun.start(target: "vault-open")
var arguments = CommandLine.argc
var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
    FuzzRun.check(FuzzTarget.vaultOpen(FuzzRun.bytes(data, size)))
    return 0
})
