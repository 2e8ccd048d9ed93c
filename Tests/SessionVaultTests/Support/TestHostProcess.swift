import Foundation
import SessionVaultTestSupport

/// Runs the `VaultTestHost` executable (built beside the tests) as a second process.
final class TestHostProcess: @unchecked Sendable {
    // Sendable: `process` is only started and waited on; output goes through a file.
    private let process = Process()
    private let outputPath: String
    private let logDirectory: String

    /// - Parameter umask: when given (e.g. "022"), the child runs under that umask (set by
    ///   /bin/sh before it execs the host), whatever the test process's own umask is.
    /// - Parameter environment: variables added to the test process's own (a preloaded library).
    init(_ arguments: [String], scratch: TemporaryDirectory, umask: String? = nil, environment: [String: String] = [:]) throws {
        let executable = try BuiltExecutable.vaultTestHost.required()
        outputPath = scratch.file("host-\(UUID().uuidString).out")
        logDirectory = scratch.path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        if let umask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(umask) && exec \"$0\" \"$@\"", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        // The host writes the library's log (debug and above: paths, reasons, fingerprints,
        // never tokens) to <scratch>/<pid>.log, for a failure message to show.
        process.environment = ProcessInfo.processInfo.environment.merging(["SESSIONVAULT_HOST_LOG_DIR": scratch.path]) { $1 }
            .merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = process.standardOutput
        try process.run()
    }

    /// The child's process id, for SIGSTOP / SIGCONT / SIGKILL.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Everything the child printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// What the library logged in the child (see `FileLogHandler` in VaultTestHost).
    var log: String { (try? String(contentsOfFile: "\(logDirectory)/\(process.processIdentifier).log", encoding: .utf8)) ?? "" }

    /// Waits (polling) until the child printed a line containing `text`; false on timeout.
    func waitFor(_ text: String, timeout: TimeInterval = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(text) { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        // One last look: a busy machine may have woken this task only after the deadline.
        return output.contains(text)
    }

    /// Waits for the child to exit, at most `timeout` seconds; nil when it had not exited by
    /// then (it is killed, so a hang shows as a failure instead of hanging the test run).
    func finish(timeout: TimeInterval) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 10_000_000) }
        guard !process.isRunning else {
            process.interrupt()
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try? await Task.sleep(nanoseconds: 10_000_000) }
            process.waitUntilExit()
            return nil
        }
        // Returns at once (the process has ended); it is what clears Foundation's own reference
        // cycle on a Process (runLoopSource), which polling `isRunning` alone leaves: leaked,
        // LeakSanitizer reports it (make check-asan).
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether the child was killed by a signal (a trap is SIGILL) rather than exiting.
    var crashed: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// Sends SIGSTOP and waits until every thread of the child has stopped (each reads "T" in
    /// /proc/<pid>/task/*/stat): `kill` returns before a thread running on the other core has
    /// taken the signal, and that thread could still read an answer let through right after.
    /// False when the child is gone or did not stop within `timeout`.
    @discardableResult
    func stop(timeout: TimeInterval = 20) async -> Bool {
        guard kill(process.processIdentifier, SIGSTOP) == 0 else { return false }
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if allThreadsStopped() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        } while Date() < deadline
        return allThreadsStopped()
    }

    private func allThreadsStopped() -> Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty else { return false }
        return threads.allSatisfy { thread in
            // The state follows the command name, which is in parentheses and may hold spaces.
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("T")
        }
    }

    /// Kills the child with SIGKILL: no cleanup of its own runs (a crash, iOS ending an app).
    func sigkill() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to exit and returns its status.
    func finish() async -> Int32 {
        while process.isRunning { try? await Task.sleep(nanoseconds: 20_000_000) }
        process.waitUntilExit()  // see finish(timeout:)
        return process.terminationStatus
    }
}
