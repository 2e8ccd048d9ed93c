#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call on a vault file (paths only; never file contents).
public struct FileIOError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The C function that failed, e.g. `open`, `fsync`, `rename`.
    public let operation: String
    /// The file or directory the operation was on.
    public let path: String
    /// The `errno` the system call left.
    public let errno: Int32
    /// Set when the path exists but is not a regular file (a FIFO, device, socket or directory):
    /// the kind found. Such a path is refused without being read, so nothing blocks on it.
    public let foundFileType: String?

    init(operation: String, path: String, errno: Int32, foundFileType: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.foundFileType = foundFileType
    }

    /// `path` is not a regular file; `mode` is its `st_mode`.
    static func notRegularFile(_ path: String, mode: mode_t) -> FileIOError {
        let kind: String
        switch mode & S_IFMT {
        case S_IFIFO: kind = "FIFO"
        case S_IFDIR: kind = "directory"
        case S_IFCHR: kind = "character device"
        case S_IFBLK: kind = "block device"
        case S_IFSOCK: kind = "socket"
        case S_IFLNK: kind = "symbolic link"
        default: kind = "special file"
        }
        return FileIOError(operation: "open", path: path, errno: EINVAL, foundFileType: kind)
    }

    public var description: String {
        if let foundFileType { return "\(path) is a \(foundFileType), not a regular file: refused without reading it" }
        return "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The path is a FIFO, device, socket or directory where a regular file belongs.
    public var isNotRegularFile: Bool { foundFileType != nil }

    /// The file is not there.
    public var isNotFound: Bool { errno == ENOENT }
    /// Out of space or over a file-size limit.
    public var isOutOfSpace: Bool { errno == ENOSPC || errno == EFBIG || errno == EDQUOT }
}
