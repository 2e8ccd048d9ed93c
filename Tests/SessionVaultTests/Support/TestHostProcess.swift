import Foundation

/// Runs the `VaultTestHost` executable (built beside the tests) as a second process.
final class TestHostProcess: @unchecked Sendable {
    // Sendable: `process` is only started and waited on; output goes through a file.
    private let process = Process()
    private let outputPath: String

    static let executable: String? = {
        var candidates: [String] = [Bundle.main.bundleURL.path, Bundle.main.bundleURL.deletingLastPathComponent().path]
        if let first = CommandLine.arguments.first { candidates.insert(URL(fileURLWithPath: first).deletingLastPathComponent().path, at: 0) }
        return candidates.map { $0 + "/VaultTestHost" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    struct NotBuilt: Error {}

    init(_ arguments: [String], scratch: TemporaryDirectory) throws {
        guard let executable = Self.executable else { throw NotBuilt() }
        outputPath = scratch.file("host-\(UUID().uuidString).out")
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = process.standardOutput
        try process.run()
    }

    /// Everything the child printed so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    var lines: [String] { output.split(separator: "\n").map(String.init) }

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

    /// Kills the child with SIGKILL: no cleanup of its own runs (a crash, iOS ending an app).
    func sigkill() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the child to exit and returns its status.
    func finish() async -> Int32 {
        while process.isRunning { try? await Task.sleep(nanoseconds: 20_000_000) }
        return process.terminationStatus
    }
}
