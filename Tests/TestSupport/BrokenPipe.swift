import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a child process's stdin report `EPIPE` instead of killing the whole test process.
///
/// Why: on Linux a write to a pipe (or socket) whose reader is gone raises SIGPIPE, whose default
/// action ends the process: one full suite run died of signal 13 about 4 s in, with no summary
/// line, when a child exited before a helper wrote its stdin. Ignoring the signal once for the test
/// process turns such a write into an error the helper can report; sockets the tests own send with
/// `MSG_NOSIGNAL` as well (`ScriptedHTTPServer`).
public enum BrokenPipe {
    private static let ignored: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Ignores SIGPIPE in this process (idempotent).
    public static func ignoreSignal() { ignored }

    /// Writes all of `data` to `handle`: throws (EPIPE when the reading end is closed) where
    /// `FileHandle.write(_:)` would end the process.
    public static func write(_ data: Data, to handle: FileHandle) throws {
        ignoreSignal()
        try handle.write(contentsOf: data)
    }
}
