import Foundation
import Testing
import SessionVaultTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What once killed a whole suite run: a write to a child that is already gone must be an error the
/// helper reports (EPIPE), not a SIGPIPE that ends the test process with no summary line.
@Suite("Writes to a dead child report EPIPE instead of killing the test process", .timeLimit(.minutes(1)))
struct BrokenPipeTests {
    @Test("writing the stdin of a child killed before the write throws EPIPE, and this process lives on")
    func writeAfterTheChildWasKilled() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        // The parent's copy of the reading end goes first: only the child holds it now.
        try input.fileHandleForReading.close()
        kill(process.processIdentifier, SIGKILL)
        // The event: the child has died (its exit is reaped), so no reader is left.
        while process.isRunning { try? await Task.sleep(nanoseconds: 2_000_000) }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        var failure: (any Error)?
        do {
            try BrokenPipe.write(Data("input nobody reads\n".utf8), to: input.fileHandleForWriting)
        } catch {
            failure = error
        }
        let posix = try #require(failure as? CocoaError, "the write to a dead child did not fail: \(String(describing: failure))")
        let underlying = posix.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(
            underlying?.code == Int(EPIPE) || posix.errorCode == Int(EPIPE) || "\(posix)".contains("\(EPIPE)"),
            "expected EPIPE: \(posix)")
    }

    @Test("Shell.run survives a child that exits without reading a large input")
    func shellSurvivesAChildThatReadsNothing() async throws {
        // 1 MiB: more than a pipe holds, so the write is still going when the child has exited.
        let result = try await Shell.run("/bin/sh", ["-c", "exit 3"], stdin: Data(repeating: 0x61, count: 1 << 20))
        #expect(result.status == 3)
    }
}
