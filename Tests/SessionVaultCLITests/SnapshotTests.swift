import Foundation
import Testing
import SessionVaultTestSupport

/// The CLI's reference is its help texts (`make manual` turns them into the manual page), and the
/// README shows one transcript: both are compared here with what the built `sessionvault` prints,
/// against the checked-in files in `Snapshots/`. `make cli-snapshots`
/// (SESSIONVAULT_UPDATE_SNAPSHOTS=1) rewrites the files from the binary instead.
@Suite("sessionvault help texts and the README transcript")
struct SnapshotTests {
    /// Every subcommand; "" is `sessionvault --help` itself.
    static let commands = [
        "", "keygen", "import", "resume", "inspect", "verify", "events", "logout", "biometric",
        "rekey", "wipe", "export-key", "demo"
    ]

    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots").path
    static var updating: Bool { ProcessInfo.processInfo.environment["SESSIONVAULT_UPDATE_SNAPSHOTS"] == "1" }

    @Test(arguments: commands)
    func helpText(command: String) async throws {
        let file = "\(Self.snapshots)/help/\(command.isEmpty ? "sessionvault" : command).txt"
        let run = try await Self.shell(
            ["sessionvault", command, "--help"].filter { !$0.isEmpty }
                .joined(separator: " "), in: TemporaryDirectory().path)
        #expect(run.status == 0)
        try Self.compare(run.output, with: file)
    }

    /// The README's transcript is this file: its `$` lines are run one by one with `sh` in an
    /// empty directory holding the GoTrue fixture as token-response.json, and what they print
    /// (stdout and stderr, in order) must be the lines after each.
    @Test func theReadmeTranscript() async throws {
        let file = "\(Self.snapshots)/transcript.txt"
        let expected = try String(contentsOfFile: file, encoding: .utf8)
        let commands = expected.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { $0.hasPrefix("$ ") }.map { String($0.dropFirst(2)) }
        try #require(!commands.isEmpty, "the transcript has no $ line")
        let directory = TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: directory.file("token-response.json"), contents: Fixtures.goTrueJSON())
        var actual = ""
        for command in commands {
            let run = try await Self.shell(command, in: directory.path)
            actual += "$ \(command)\n" + run.output
        }
        #expect(!actual.contains(Fixtures.refreshMarker) && !actual.contains(Fixtures.accessMarker), "a token in the transcript")
        try Self.compare(actual, with: file)
    }

    /// What varies from run to run, and only that: the random session id and the fingerprints
    /// (keyed by a new random key each run), and the time a scan took; and, from one test leg to
    /// the other, the engine's own words for SQLITE_NOTADB (SQLite 3.15 under SQLCipher 3.4.1
    /// says "file is encrypted or is not a database", later SQLite "file is not a database").
    /// Each is replaced by a placeholder of its own in both texts; every other character must be
    /// the same.
    static func normalized(_ text: String) -> String {
        var text = text
        let replacements: [(String, String)] = [
            (#"\b[0-9a-f]{32}\b"#, "<session id>"),
            (#"\b[0-9a-f]{16}\b"#, "<fingerprint>"),
            (#"(elapsed +)[0-9]+(\.[0-9]+)? ms"#, "$1<ms> ms"),
            (#"("elapsedSeconds" : )[0-9.e-]+"#, "$1<seconds>"),
            (#"\(file is (encrypted or is )?not a database\)"#, "(<the engine's SQLITE_NOTADB message>)")
        ]
        for (pattern, template) in replacements {
            text = text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        return text
    }

    static func compare(_ actual: String, with file: String) throws {
        if updating {
            try actual.write(toFile: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let (got, want) = (normalized(actual), normalized(expected))
        if got != want {
            let gotLines = got.split(separator: "\n", omittingEmptySubsequences: false)
            let wantLines = want.split(separator: "\n", omittingEmptySubsequences: false)
            let first =
                zip(gotLines, wantLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(gotLines.count, wantLines.count)
            let shown = { (lines: [Substring]) in first < lines.count ? String(lines[first]) : "<end>" }
            Issue.record(
                """
                \(file) differs from the built binary at line \(first + 1) (make cli-snapshots rewrites it):
                  binary:   \(shown(gotLines))
                  snapshot: \(shown(wantLines))
                """)
        }
    }

    /// `sh -c command` in `directory` with the built CLI first on PATH and a fixed width for the
    /// help texts; stdout and stderr go to one file, in the order they were written.
    static func shell(_ command: String, in directory: String) async throws -> (status: Int32, output: String) {
        let executable = try BuiltExecutable.sessionvault.required()
        let scratch = TemporaryDirectory("sessionvault-snapshot-io")
        let outputPath = scratch.file("output")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var environment = ProcessInfo.processInfo.environment
        let binDirectory = (executable as NSString).deletingLastPathComponent
        environment["PATH"] = binDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["COLUMNS"] = "100"
        environment["NO_COLOR"] = "1"
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Polled from the task, not a blocked thread: the test pool has one thread per core.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 2_000_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? output.close()
        let text = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        return (process.terminationStatus, text)
    }
}
