import CFuzzer
import Foundation
import _SessionVaultFuzzing

/// What the harness does for the target it runs: `run(_:)`.
///
/// - `start(_:)` comes first: with `SESSIONVAULT_FUZZ_WRITE_SEEDS=<dir>`
///   in the environment the process writes the target's seed corpus there and exits (`make
///   fuzz-corpus`); otherwise it registers the exit report and the scratch directory's removal.
/// - its input callback calls `check(_:)` with its entry point's answer: a broken
///   property is written to stderr and the process aborts, which libFuzzer records as a crash
///   with the input that caused it.
public enum FuzzRun {
    nonisolated(unsafe) private static var target = ""
    /// The target's entry point, kept here because libFuzzer's callback is a C function pointer,
    /// which cannot capture it.
    nonisolated(unsafe) private static var entry: ([UInt8]) -> String? = { _ in nil }

    /// The whole main for `target`: starts it, then hands libFuzzer a callback that feeds each
    /// input to its entry point and `check`s the answer.
    public static func run(_ target: FuzzTarget.Name) -> Never {
        start(target)
        Self.entry = FuzzTarget.entry(target)
        var arguments = CommandLine.argc
        var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&arguments, &values) { data, size in
                FuzzRun.check(FuzzRun.entry(FuzzRun.bytes(data, size)))
                return 0
            })
    }

    /// Called first with the target to run (see above).
    public static func start(_ run: FuzzTarget.Name) {
        let name = run.rawValue
        target = name
        if let directory = ProcessInfo.processInfo.environment["SESSIONVAULT_FUZZ_WRITE_SEEDS"] {
            do {
                let count = try FuzzTarget.writeSeeds(for: run, into: directory)
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
