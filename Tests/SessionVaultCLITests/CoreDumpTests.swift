import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import SessionVaultTestSupport
#endif

/// A crashed CLI must not leave its key in a core file.
@Suite("sessionvault: no core file while it holds a key")
struct CoreDumpTests {
    @Test func aCLIAbortedWhileHoldingAPassphraseLeavesNoCoreFile() async throws {
        let cli = try #require(CLI.executable)
        let directory = TemporaryDirectory()
        // A control: in this environment an ordinary process aborted under `ulimit -c unlimited`
        // does leave a core file, so the CLI's missing one is the CLI's doing.
        let control = try Self.aborted(["/bin/sleep", "600"], in: directory.file("control"), firstLine: nil)
        #expect(!control.isEmpty, "the environment writes core files (core_pattern); without that this test proves nothing")
        // The CLI with a passphrase read and held, blocked reading the token response.
        let vaultDirectory = directory.file("cli")
        let cores = try Self.aborted(
            [cli, "import", "--vault", vaultDirectory + "/vault.db", "--passphrase-stdin"],
            in: vaultDirectory, firstLine: "a passphrase held in memory\n")
        #expect(cores.isEmpty, "core files: \(cores)")
    }

    /// Runs `command` in `directory` under `ulimit -c unlimited`, feeds `firstLine` on standard
    /// input (keeping it open), waits until the process has read it, aborts it and returns the
    /// core files it left.
    static func aborted(_ command: [String], in directory: String, firstLine: String?) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // The test runner's threads block most signals, and a child inherits that mask: `env
        // --default-signal` gives SIGABRT its default action (and unblocks it) in the child.
        process.arguments = ["-c", "ulimit -c unlimited && exec env --default-signal=ABRT \"$@\"", "bash"] + command
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        // The Swift runtime's own crash handler catches SIGABRT to print a backtrace; off here so
        // the signal takes its default action, a core dump, unless the process refused dumps.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        // Under AddressSanitizer (make check-asan) the sanitizer's runtime itself sets
        // RLIMIT_CORE to 0 as the CLI starts (disable_coredump=1, its default on 64-bit Linux),
        // so the CLI would leave no core whatever it did. Off here: then only the CLI's own
        // refusal can explain a missing core. (The sanitizer's shadow memory stays out of a core
        // anyway: use_madv_dontdump.) Programs without the sanitizer ignore the variable.
        environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "disable_coredump=0"
        process.environment = environment
        try process.run()
        if let firstLine {
            input.fileHandleForWriting.write(Data(firstLine.utf8))
            // The event: the pipe is empty once the process has read the line.
            var pending: Int32 = 1
            while pending > 0 && process.isRunning {
                _ = ioctl(input.fileHandleForWriting.fileDescriptor, UInt(FIONREAD), &pending)
                if pending > 0 { usleep(2_000) }
            }
        } else {
            // `sleep` reads nothing: wait until it runs the program (its command line is sleep's).
            while process.isRunning,
                (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/cmdline", encoding: .utf8))?.hasPrefix("/bin/sleep") != true
            {
                usleep(2_000)
            }
        }
        kill(process.processIdentifier, SIGABRT)
        // An upper bound only, so a regression cannot hang the suite.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "ended by the signal")
        try? input.fileHandleForWriting.close()
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("core") }
    }
}
