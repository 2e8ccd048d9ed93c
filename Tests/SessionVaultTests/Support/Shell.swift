import Foundation
import SessionVaultTestSupport

/// Runs a program to completion and captures its output (for tests that drive real shells).
enum Shell {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // A child that exits without reading its input is reported by its status, not by a
        // SIGPIPE that would end the test process.
        if let stdin { try? BrokenPipe.write(stdin, to: input.fileHandleForWriting) }
        try? input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        // Sleep the task, not the thread: the test pool has only one thread per core.
        while process.isRunning { try? await Task.sleep(nanoseconds: 2_000_000) }
        // Returns at once (the process has ended); it is what clears Foundation's own reference
        // cycle on a Process (runLoopSource), which polling `isRunning` alone leaves: leaked,
        // LeakSanitizer reports it (make check-asan).
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }
}
