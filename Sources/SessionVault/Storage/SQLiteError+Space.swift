#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SQLiteError {
    /// The write failed for lack of space: SQLITE_FULL, or an I/O error whose errno says the
    /// disk is full, the quota is used up, or a file-size limit was reached.
    public var isOutOfSpace: Bool {
        if code == .full { return true }
        return code == .ioError && [ENOSPC, EFBIG, EDQUOT].contains(systemErrno)
    }
}
