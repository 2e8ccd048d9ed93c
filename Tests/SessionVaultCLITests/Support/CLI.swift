import Foundation
import SessionVaultTestSupport

/// Runs the built `sessionvault` executable, as a user would, and collects what it printed.
enum CLI {
    /// The executable beside the test bundle, or the path in `SESSIONVAULT_CLI`.
    static var executable: String? { BuiltExecutable.sessionvault.path }

    /// Runs `sessionvault arguments…` in `directory`, with `stdin` piped in (or /dev/null).
    static func run(
        _ arguments: [String], stdin: Data? = nil, in directory: String? = nil,
        timeout: TimeInterval = 60
    ) async throws -> CLIResult {
        let executable = try BuiltExecutable.sessionvault.required()
        return try await Self.spawn(executable, arguments, stdin: stdin, in: directory, timeout: timeout)
    }

    /// Runs any program (the `sqlcipher` and `sqlite3` shells too).
    static func spawn(
        _ program: String, _ arguments: [String], stdin: Data? = nil, in directory: String? = nil,
        timeout: TimeInterval = 60
    ) async throws -> CLIResult {
        let scratch = TemporaryDirectory("sessionvault-cli-io")
        let outPath = scratch.file("stdout"), errPath = scratch.file("stderr")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardOutput = out
        process.standardError = err
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        process.environment = environment
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            // Small inputs fit the pipe buffer; writing before waiting cannot deadlock.
            // A CLI that exits before reading (a usage error) is reported by its status, not by
            // a SIGPIPE that would end the test process.
            try? BrokenPipe.write(stdin, to: input.fileHandleForWriting)
            try? input.fileHandleForWriting.close()
        }
        // Waits by sleeping the task, not the thread: the test pool has one thread per core
        // (two here), and a blocked thread starves every other test running meanwhile.
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 2_000_000) }
        if process.isRunning {
            process.terminate()
            while process.isRunning { try? await Task.sleep(nanoseconds: 2_000_000) }
        }
        // Returns at once (the process has ended); it is what clears Foundation's own reference
        // cycle on a Process (runLoopSource), which polling `isRunning` alone leaves: leaked,
        // LeakSanitizer reports it (make check-asan).
        process.waitUntilExit()
        try? out.close()
        try? err.close()
        let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
        return CLIResult(
            status: process.terminationStatus, stdout: stdout, stderr: stderr,
            crashed: process.terminationReason == .uncaughtSignal)
    }

    /// Whether `text` looks like a version number: dot-separated numbers, at least two
    /// (`3.4.1`, `4.6.1`, `3.15.2`, with an optional suffix such as ` community`).
    static func isVersion(_ text: String) -> Bool {
        let parts = (text.split(separator: " ").first ?? "").split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// The path of a program on PATH (`sqlcipher`, `sqlite3`). The `sqlcipher` shell is the one
    /// in `SESSIONVAULT_SQLCIPHER_SHELL` when set: the 4.x leg drives its own engine's shell.
    static func tool(_ name: String) -> String? {
        if name == "sqlcipher", let shell = ProcessInfo.processInfo.environment["SESSIONVAULT_SQLCIPHER_SHELL"], !shell.isEmpty {
            return FileManager.default.isExecutableFile(atPath: shell) ? shell : nil
        }
        for directory in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }
}
