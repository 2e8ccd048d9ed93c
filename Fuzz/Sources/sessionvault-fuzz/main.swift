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

/// Says what SESSIONVAULT_FUZZ_TARGET must be. A function, so that its strings are released
/// before the exit that follows (LeakSanitizer reports what is still held at exit).
func reportUnknownTarget(_ name: String) {
    let names = FuzzTarget.Name.allCases.map(\.rawValue).joined(separator: ", ")
    FileHandle.standardError.write(Data("SESSIONVAULT_FUZZ_TARGET must name a target (\(names)); got \"\(name)\"\n".utf8))
}

guard let target = FuzzTarget.Name(rawValue: ProcessInfo.processInfo.environment["SESSIONVAULT_FUZZ_TARGET"] ?? "") else {
    reportUnknownTarget(ProcessInfo.processInfo.environment["SESSIONVAULT_FUZZ_TARGET"] ?? "")
    exit(64)
}
FuzzRun.run(target)
