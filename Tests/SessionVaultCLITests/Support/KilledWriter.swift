import Foundation
import SessionVaultTestSupport

/// A real writer process (`VaultTestHost`, built beside the tests) that commits to a vault, says
/// "ready" and is then killed with SIGKILL, as a device image of a running app holds a vault:
/// the write-ahead log with frames the main file lacks, the shared-memory index and the lock
/// file, nothing closed or checkpointed.
final class KilledWriter: @unchecked Sendable {
    // Sendable: `lock` guards `output` and `waiter`; `process` is only started, killed and awaited.
    private let process = Process()
    private let lock = NSLock()
    private var output = ""
    private var waiter: CheckedContinuation<String, any Error>?
    private var exited = false

    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `VaultTestHost <arguments…>`, waits for its "ready" line (an event on the pipe, not a
    /// sleep), kills it with SIGKILL and waits until it is gone. Returns the ready line.
    static func run(_ arguments: [String]) async throws -> String {
        let writer = try KilledWriter(arguments)
        let ready: String
        do {
            ready = try await writer.readyLine()
        } catch {
            writer.sigkill()
            await writer.waitForExit()
            throw error
        }
        writer.sigkill()
        await writer.waitForExit()
        guard writer.process.terminationReason == .uncaughtSignal, writer.process.terminationStatus == SIGKILL else {
            throw Failed(description: "the writer exited on its own (status \(writer.process.terminationStatus)) instead of being killed")
        }
        return ready
    }

    private init(_ arguments: [String]) throws {
        let executable = try BuiltExecutable.vaultTestHost.required()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                settle(ended: true)
            } else {
                lock.withLock { output += String(decoding: data, as: UTF8.self) }
                settle(ended: false)
            }
        }
        try process.run()
    }

    /// The first line starting with "ready", the moment it arrives; the writer's output as the
    /// error when it ends first. The 120 s bound only ends a broken setup.
    private func readyLine() async throws -> String {
        let timer = Task { [self] in
            try await Task.sleep(nanoseconds: 120_000_000_000)
            resume(with: .failure(Failed(description: "no ready line within 120 s: \(lock.withLock { output })")))
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            lock.withLock { waiter = continuation }
            settle(ended: false)
        }
    }

    private func settle(ended: Bool) {
        let (text, done) = lock.withLock {
            if ended { exited = true }
            return (output, exited)
        }
        if let line = text.split(separator: "\n", omittingEmptySubsequences: true).first(where: { $0.hasPrefix("ready") }),
            text.contains(line + "\n")
        {
            resume(with: .success(String(line)))
        } else if done {
            resume(with: .failure(Failed(description: "the writer ended before it was ready: \(text)")))
        }
    }

    private func resume(with result: Result<String, any Error>) {
        let continuation: CheckedContinuation<String, any Error>? = lock.withLock {
            defer { waiter = nil }
            return waiter
        }
        continuation?.resume(with: result)
    }

    private func sigkill() { _ = kill(process.processIdentifier, SIGKILL) }

    /// Waits (sleeping the task, not the thread) until the process has been reaped.
    private func waitForExit() async {
        while process.isRunning { try? await Task.sleep(nanoseconds: 2_000_000) }
        // Returns at once (the process has ended); it is what clears Foundation's own reference
        // cycle on a Process (runLoopSource), which polling `isRunning` alone leaves: leaked,
        // LeakSanitizer reports it (make check-asan).
        process.waitUntilExit()
    }
}
