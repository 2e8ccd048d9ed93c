import FuzzSupport
import Foundation
import _SessionVaultFuzzing

// The libFuzzer harness: one executable for every target of `FuzzTarget.Name`, the one list of
// them. The target comes from the environment (SESSIONVAULT_FUZZ_TARGET), not from an argument,
// so that libFuzzer's own re-runs of this command line (crash minimization, fork mode) run the
// same target; everything else on the command line is libFuzzer's.
//
//   sessionvault-fuzz --list                                   the targets' names, one a line
//   SESSIONVAULT_FUZZ_TARGET=header sessionvault-fuzz <corpus> [libFuzzer flags]
if CommandLine.arguments.dropFirst().first == "--list" {
    for target in FuzzTarget.Name.allCases { print(target.rawValue) }
    exit(0)
}
let name = ProcessInfo.processInfo.environment["SESSIONVAULT_FUZZ_TARGET"] ?? ""
guard let target = FuzzTarget.Name(rawValue: name) else {
    let names = FuzzTarget.Name.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("SESSIONVAULT_FUZZ_TARGET must name a target (\(names)); got \"\(name)\"\n".utf8))
    exit(64)
}
FuzzRun.run(target)
