import Foundation
@_spi(Fuzzing) import SessionVault

/// What the libFuzzer hooks of every target do, apart from calling their own entry point.
///
/// - each target's main.swift calls `start(target:)` first: with `SESSIONVAULT_FUZZ_WRITE_SEEDS=<dir>`
///   in the environment the process writes the target's seed corpus there and exits (`make
///   fuzz-corpus`); otherwise it registers the exit report and the scratch directory's removal.
/// - its input callback calls `check(_:)` with its entry point's answer: a broken
///   property is written to stderr and the process aborts, which libFuzzer records as a crash
///   with the input that caused it.
public enum FuzzRun {
    nonisolated(unsafe) private static var target = ""

    /// Called first by each target with the target's name (see above).
    public static func start(target name: String) {
        target = name
        if let directory = ProcessInfo.processInfo.environment["SESSIONVAULT_FUZZ_WRITE_SEEDS"] {
            do {
                let count = try FuzzTarget.writeSeeds(for: name, into: directory)
                FileHandle.standardError.write(Data("\(name): \(count) seeds written to \(directory)\n".utf8))
                FuzzTarget.finish()
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("\(name): seeds not written: \(error)\n".utf8))
                FuzzTarget.finish()
                exit(1)
            }
        }
        atexit {
            for (outcome, count) in FuzzTarget.vaultOpenOutcomes() {
                FileHandle.standardError.write(Data("outcome \(outcome): \(count)\n".utf8))
            }
            FuzzTarget.finish()
        }
    }

    /// The input libFuzzer hands over, as bytes (it may pass a null pointer with size 0).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Aborts with the broken property on stderr when there is one (see above).
    public static func check(_ violation: String?) {
        guard let violation else { return }
        FileHandle.standardError.write(Data("\(target): property broken: \(violation)\n".utf8))
        abort()
    }
}
