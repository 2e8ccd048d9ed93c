import Foundation
import SessionVaultTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `VaultCrashHost` child process (built beside the tests) with its stdout piped back.
///
/// Spawned with `posix_spawn` and raw pipes rather than Foundation's `Process` and `Pipe`: every
/// descriptor here is closed exactly once, by this type. (With `Pipe`, a handle closed again
/// after its number was reused can close a database file another test holds open; that showed
/// up as SQLITE_IOERR_WRITE in unrelated tests of the same run.) The blocking waits run on a GCD
/// queue, so they never hold one of the few threads of Swift's cooperative pool.
final class CrashHost: @unchecked Sendable {
    // Sendable: one test drives it, one call at a time.

    struct SpawnFailed: Error, CustomStringConvertible {
        let code: Int32
        var description: String { "posix_spawn failed with \(code)" }
    }

    struct Timeout: Error, CustomStringConvertible {
        let waitingFor: String
        let seen: [String]
        var description: String { "no line starting with \"\(waitingFor)\" from VaultCrashHost; it printed \(seen)" }
    }

    /// How the child ended.
    struct Ending: Sendable {
        /// The signal that ended it, if one did.
        var signal: Int32?
        /// Its exit status, if it exited.
        var status: Int32?
        var lines: [String]
        var stderr: String
    }

    let pid: pid_t
    private var output: Int32
    private var errors: Int32
    private var reaped = false
    private var pending = ""
    /// Every complete line read so far.
    private(set) var lines: [String] = []

    init(_ arguments: [String]) throws {
        let executable = try BuiltExecutable.vaultCrashHost.required()
        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        guard pipe(&outputPipe) == 0 else { throw SpawnFailed(code: errno) }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0]); close(outputPipe[1])
            throw SpawnFailed(code: errno)
        }
        // Close-on-exec, so no other child inherits these ends (pipe2 is not imported here; a
        // child spawned by another test in between could still inherit one, which is why
        // `finish` never waits for end of output, only for the child to exit).
        for descriptor in outputPipe + errorPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // dup2 clears close-on-exec on the child's 1 and 2; every other copy closes at exec.
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        for pointer in argv { free(pointer) }
        close(outputPipe[1])
        close(errorPipe[1])
        guard result == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            throw SpawnFailed(code: result)
        }
        pid = child
        output = outputPipe[0]
        errors = errorPipe[0]
    }

    deinit {
        if !reaped {
            sendKill(pid)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        if output >= 0 { close(output) }
        if errors >= 0 { close(errors) }
    }

    /// Waits until a line starting with `prefix` arrives; nil when the output ends first.
    func line(startingWith prefix: String, timeout: TimeInterval = 20) async throws -> String? {
        try await Self.offPool { try self.waitForLine(startingWith: prefix, timeout: timeout) }
    }

    /// Sends SIGKILL: no cleanup of any kind runs in the child. The child is not reaped until
    /// `ended()`, so its pid cannot have gone to another process meanwhile.
    func kill() {
        guard !reaped else { return }
        sendKill(pid)
    }

    /// Waits for the child to end and reads the rest of its output.
    func ended() async throws -> Ending {
        try await Self.offPool { try self.finish() }
    }

    private static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }

    private func waitForLine(startingWith prefix: String, timeout: TimeInterval) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let line = lines.first(where: { $0.hasPrefix(prefix) }) { return line }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Timeout(waitingFor: prefix, seen: lines) }
            if readAvailable(timeout: remaining) == .end { return lines.first(where: { $0.hasPrefix(prefix) }) }
        }
    }

    private func finish() throws -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        // The child is gone: what it wrote is in the pipes. Drain without waiting for the end of
        // output (see `init`).
        while readAvailable(timeout: 0) == .data {}
        if !pending.isEmpty { lines.append(pending); pending = "" }
        var stderrBytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: errors, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, 0) > 0 {
            let count = buffer.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            stderrBytes += buffer[0..<count]
        }
        // The <sys/wait.h> macros are not imported into Swift: the low 7 bits are the signal.
        let signal = status & 0x7F
        return Ending(
            signal: signal != 0 ? signal : nil, status: signal == 0 ? (status >> 8) & 0xFF : nil,
            lines: lines, stderr: String(decoding: stderrBytes, as: UTF8.self))
    }

    private enum ReadResult { case data, nothingYet, end }

    /// Reads what arrives within `timeout` seconds (0: only what is there now).
    private func readAvailable(timeout: TimeInterval) -> ReadResult {
        var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout <= 0 ? 0 : Int32(max(1, min(timeout, 60) * 1000)))
        if ready == 0 { return .nothingYet }
        if ready < 0 { return errno == EINTR ? .nothingYet : .end }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
        if count < 0 { return errno == EINTR ? .nothingYet : .end }
        if count == 0 { return .end }
        pending += String(decoding: buffer[0..<count], as: UTF8.self)
        while let newline = pending.firstIndex(of: "\n") {
            lines.append(String(pending[..<newline]))
            pending = String(pending[pending.index(after: newline)...])
        }
        return .data
    }
}

/// `kill(2)` with SIGKILL; outside the class, where `kill` is the C function.
private func sendKill(_ pid: pid_t) {
    _ = kill(pid, SIGKILL)
}
