#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteError {
    /// The write failed for lack of space: SQLITE_FULL, SQLITE_IOERR_SHMSIZE (the shared-memory
    /// file could not be grown: SQLite extends it by writing, and only a full disk or a file-size
    /// limit stops that; it leaves no errno to read), or an I/O error whose errno says the disk
    /// is full, the quota is used up, or a file-size limit was reached.
    package var isOutOfSpace: Bool {
        if code == .full || extendedCode == .ioErrorSharedMemorySize { return true }
        return code == .ioError && [ENOSPC, EFBIG, EDQUOT].contains(systemErrno)
    }
}
