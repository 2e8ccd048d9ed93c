#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a vault file (paths only; never file contents).
public struct FileIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `open`, `fsync`, `rename`.
    public let operation: String
    public let path: String
    public let errno: Int32

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The file is not there.
    public var isNotFound: Bool { errno == ENOENT }
    /// Out of space or over a file-size limit.
    public var isOutOfSpace: Bool { errno == ENOSPC || errno == EFBIG || errno == EDQUOT }
}
