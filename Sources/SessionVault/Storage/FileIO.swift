import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations the vault needs, each a thin wrapper of one or two system calls with
/// their result turned into a `FileIOError` in one place (`valueOrErrno`).
package enum FileIO {
    /// Returns `value` unless it is -1, in which case throws with the current errno.
    @discardableResult
    static func valueOrErrno<T: FixedWidthInteger>(_ value: T, _ operation: String, _ path: String) throws(FileIOError) -> T {
        guard value == -1 else { return value }
        throw FileIOError(operation: operation, path: path, errno: errno)
    }

    /// `lstat`: nil when the path does not exist.
    static func status(_ path: String) throws(FileIOError) -> stat? {
        var info = stat()
        if lstat(path, &info) == 0 { return info }
        if errno == ENOENT { return nil }
        throw FileIOError(operation: "lstat", path: path, errno: errno)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func size(_ path: String) -> Int64? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Reads a whole (small) file.
    ///
    /// Refuses anything but a regular file, without blocking on it: a FIFO opened without
    /// O_NONBLOCK waits for a writer forever (and a device may never end), so the open is
    /// non-blocking and the type is checked on the open descriptor, not on the path beforehand.
    package static func read(_ path: String) throws(FileIOError) -> [UInt8] {
        let fd = try openRegularFile(path, O_RDONLY)
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = try valueOrErrno(chunk.withUnsafeMutableBytes { Glibc_read(fd, $0.baseAddress, $0.count) }, "read", path)
            if n == 0 { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Opens `path` (with `flags` plus close-on-exec, no-follow and non-blocking) and checks on
    /// the descriptor that it is a regular file; anything else is closed again and refused with
    /// `FileIOError.notRegularFile`. Every file the library opens itself goes through here, for
    /// reading and for writing: a FIFO opened for writing without O_NONBLOCK waits for a reader
    /// forever (the generation record did, inside a write's structure lock, and every other
    /// process's write waited behind it). Non-blocking, a FIFO without a reader fails at once
    /// (ENXIO) and one with a reader is refused by the type check; a directory fails with EISDIR
    /// (for writing) or the type check (for reading); both say what was found. A link fails with
    /// ELOOP, kept as it is (the key file's caller calls that insecure).
    /// - Parameter mode: the mode of a file `O_CREAT` creates (filtered by the umask).
    static func openRegularFile(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(FileIOError) -> Int32 {
        let opened = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode)
        if opened == -1 {
            let code = errno
            // Say what is there rather than what the kernel answered (ENXIO, EISDIR):
            // "a FIFO where the generation record belongs" is the fact a person can act on.
            if code == ENXIO || code == EISDIR, let info = try? status(path), (info.st_mode & S_IFMT) != S_IFREG {
                throw FileIOError.notRegularFile(path, mode: info.st_mode)
            }
            throw FileIOError(operation: "open", path: path, errno: code)
        }
        let fd = opened
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileIOError(operation: "fstat", path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileIOError.notRegularFile(path, mode: info.st_mode)
        }
        return fd
    }

    /// Writes `bytes` to `path` so that a crash leaves the old file or the new one, never a mix:
    /// temporary file, fsync, rename (or link, which refuses an existing target), fsync of the
    /// directory.
    static func writeAtomically(_ path: String, bytes: UnsafeRawBufferPointer, mode: mode_t, overwrite: Bool) throws(FileIOError) {
        let directory = parentDirectory(of: path)
        let temporary = "\(path).tmp-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let fd = try valueOrErrno(open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode), "open", temporary)
        do {
            try writeAll(fd, bytes, path: temporary)
            // The mode given to open is filtered by the umask; make it exact.
            try valueOrErrno(fchmod(fd, mode), "fchmod", temporary)
            try valueOrErrno(fsync(fd), "fsync", temporary)
            close(fd)
            if overwrite {
                try valueOrErrno(rename(temporary, path), "rename", path)
            } else {
                try valueOrErrno(link(temporary, path), "link", path)
                unlink(temporary)
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        try fsyncDirectory(directory)
    }

    /// write(2) until every byte of `bytes` is out, straight from the caller's memory (which may
    /// be locked memory holding a key), retrying a call a signal interrupted. `path` names the
    /// descriptor's file in the error. Package-wide: the CLI writes its output with it.
    package static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileIOError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc_write(descriptor, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            // Nothing written for a non-empty request is no progress: fail rather than loop forever.
            guard n > 0 else { throw FileIOError(operation: "write", path: path, errno: n < 0 ? errno : EIO) }
            offset += n
        }
    }

    /// `writeAtomically` for bytes held in an array (nothing secret).
    static func writeAtomically(_ path: String, contents: [UInt8], mode: mode_t, overwrite: Bool) throws(FileIOError) {
        var failure: FileIOError?
        contents.withUnsafeBytes { buffer in
            do { try writeAtomically(path, bytes: buffer, mode: mode, overwrite: overwrite) } catch {
                failure = (error as? FileIOError) ?? FileIOError(operation: "write", path: path, errno: EIO)
            }
        }
        if let failure { throw failure }
    }

    /// The directory holding `path`, as dirname(1) gives it: `a/b` → `a`, `a/b/` → `a`, `/a` →
    /// `/`, `b` → `.`. Plain string work: Foundation's NSString path helpers crash on a bare name
    /// on Linux. Package-wide: the CLI checks a new file's directory with it.
    /// The last component of `path` (its file name), trailing slashes ignored.
    package static func lastComponent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return String(trimmed) }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    package static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = trimmed[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }

    /// Deletes the temporary files `writeAtomically` leaves beside `path` when a crash interrupts
    /// it (`<name>.tmp-<random>`), so a wipe leaves nothing of a half-written key or header.
    static func removeTemporarySiblings(of path: String) throws(FileIOError) {
        let directory = parentDirectory(of: path)
        let prefix = String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...]) + ".tmp-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            try removeIfPresent(directory + "/" + name)
        }
    }

    /// Creates an empty file (mode 0600) if none exists; anything but a regular file already
    /// there is refused (see `openRegularFile`).
    static func createEmptyFile(_ path: String) throws(FileIOError) {
        close(try openRegularFile(path, O_WRONLY | O_CREAT))
    }

    /// Throws `FileIOError.notRegularFile` when something other than a regular file (a FIFO, a
    /// directory, a link, a device) is at `path`; nothing there is fine. For files SQLite opens
    /// itself (its logs and journals), which this library cannot open for it: SQLite 3.15 has
    /// no no-follow flag and opens without O_NONBLOCK, so a FIFO there would hang it.
    static func requireRegularFileOrNothing(_ path: String) throws(FileIOError) {
        guard let info = try status(path), (info.st_mode & S_IFMT) != S_IFREG else { return }
        throw FileIOError.notRegularFile(path, mode: info.st_mode)
    }

    /// Flushes a file's data to stable storage.
    static func syncFile(_ path: String) throws(FileIOError) {
        let fd = try openRegularFile(path, O_RDONLY)
        defer { close(fd) }
        try valueOrErrno(fsync(fd), "fsync", path)
    }

    /// Makes a directory entry change (create, rename, unlink) durable.
    static func fsyncDirectory(_ path: String) throws(FileIOError) {
        let fd = try valueOrErrno(open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY), "open", path)
        defer { close(fd) }
        try valueOrErrno(fsync(fd), "fsync", path)
    }

    /// Deletes a file; a file that is already gone is not an error (wipe is idempotent).
    static func removeIfPresent(_ path: String) throws(FileIOError) {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw FileIOError(operation: "unlink", path: path, errno: errno)
    }
}

// Named wrappers: inside FileIO, `read`/`write` would resolve to our own static functions.
@inline(__always) private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

@inline(__always) private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}
