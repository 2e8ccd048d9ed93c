import CFuzzer
import Foundation
@_spi(Fuzzing) import SessionVault

/// What every target's main.swift does, apart from naming its entry point: `run(target:_:)`.
///
/// - `start(target:)` comes first: with `SESSIONVAULT_FUZZ_WRITE_SEEDS=<dir>`
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

    /// The whole main of a target: starts it, then hands libFuzzer a callback that feeds each
    /// input to `entry` and `check`s its answer.
    public static func run(target name: String, _ entry: @escaping ([UInt8]) -> String?) -> Never {
        start(target: name)
        Self.entry = entry
        var arguments = CommandLine.argc
        var values: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&arguments, &values) { data, size in
            FuzzRun.check(FuzzRun.entry(FuzzRun.bytes(data, size)))
            return 0
        })
    }

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
