import CSQLCipher
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure reported by the SQLCipher C API.
///
/// The description carries the result codes, SQLite's message and the SQL text that failed.
/// Statements always bind their values, so the SQL never contains a token or a key.
package struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`code.primary == code`).
    package let code: ResultCode
    /// The extended result code, e.g. `SQLITE_IOERR_FSYNC`.
    package let extendedCode: ResultCode
    /// SQLite's message for the failure.
    package let message: String
    /// The SQL that failed, when there was one.
    package let sql: String?
    /// The operating system's errno behind an I/O failure (`sqlite3_system_errno`), or 0.
    package let systemErrno: Int32

    package init(extendedCode: ResultCode, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.code = extendedCode.primary
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    package var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql { text += " [sql: \(sql)]" }
        return text
    }
}

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

/// An error type that can carry an engine failure: what lets `Connection.transaction` be generic
/// over its body's error type (a BEGIN or COMMIT that fails arrives as that type), the way
/// `CryptoFailureCarrying` does for `SecretBytes`, so that no caller needs a cast ladder.
protocol SQLiteFailureCarrying: Error {
    /// The error that says the engine failed with `failure`.
    init(sqliteFailure failure: SQLiteError)
}

extension SQLiteError: SQLiteFailureCarrying {
    init(sqliteFailure failure: SQLiteError) { self = failure }
}

/// An SQLite result code (primary or extended), with named constants so callers can write
/// `catch ResultCode.busy` instead of comparing raw integers.
///
/// Matching (`~=`, so `catch` and `switch`): a primary-code pattern (`.ioError`) matches that
/// code and every extended code built on it (`.ioErrorShortRead`, `.ioErrorFsync`); an
/// extended-code pattern matches only itself. Switch on `SQLiteError.extendedCode` and list the
/// extended patterns before their primary one, which then catches the rest.
package struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C result code.
    package let rawValue: Int32
    /// The code `rawValue` (primary or extended).
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (the low byte) of an extended result code.
    package var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// `SQLITE_OK`: success.
    package static let ok = ResultCode(rawValue: SQLITE_OK)
    /// `SQLITE_ERROR`: a generic error (SQL error, missing database).
    package static let error = ResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_PERM`: access permission denied.
    package static let permission = ResultCode(rawValue: SQLITE_PERM)
    /// `SQLITE_ABORT`: an operation was aborted.
    package static let abort = ResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds a lock past the busy timeout.
    package static let busy = ResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a conflict within the same connection.
    package static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`: out of memory.
    package static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: the database or its directory cannot be written.
    package static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    package static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database image is malformed.
    package static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_FULL`: the disk is full.
    package static let full = ResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file cannot be opened.
    package static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_SCHEMA`: the schema changed under a statement.
    package static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    /// `SQLITE_CONSTRAINT`: a constraint was violated.
    package static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISUSE`: the library was used incorrectly (an internal fault).
    package static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_NOTADB`: not a database, or (SQLCipher) a page failed authentication.
    package static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    /// `SQLITE_ROW`: a statement has a row ready.
    package static let row = ResultCode(rawValue: SQLITE_ROW)
    /// `SQLITE_DONE`: a statement has finished.
    package static let done = ResultCode(rawValue: SQLITE_DONE)

    // Extended codes the library meets. Built from their primary code as sqlite3.h defines them
    // (`primary | (n << 8)`), so they exist whatever SQLCipher release the headers come from.

    /// `SQLITE_IOERR_READ`: a read from the file failed.
    package static let ioErrorRead = extended(.ioError, 1)
    /// `SQLITE_IOERR_SHORT_READ`: a read returned fewer bytes than a page: the file ends early.
    package static let ioErrorShortRead = extended(.ioError, 2)
    /// `SQLITE_IOERR_WRITE`: a write to the file failed.
    package static let ioErrorWrite = extended(.ioError, 3)
    /// `SQLITE_IOERR_FSYNC`: flushing the file to storage failed.
    package static let ioErrorFsync = extended(.ioError, 4)
    /// `SQLITE_IOERR_TRUNCATE`: truncating the file failed.
    package static let ioErrorTruncate = extended(.ioError, 6)
    /// `SQLITE_IOERR_FSTAT`: reading the file's status failed.
    package static let ioErrorFstat = extended(.ioError, 7)
    /// `SQLITE_IOERR_LOCK`: taking or releasing a file lock failed.
    package static let ioErrorLock = extended(.ioError, 15)
    /// `SQLITE_IOERR_SHMOPEN`: the shared-memory file (`-shm`) cannot be opened.
    package static let ioErrorSharedMemoryOpen = extended(.ioError, 18)
    /// `SQLITE_IOERR_SHMSIZE`: the shared-memory file cannot be grown.
    package static let ioErrorSharedMemorySize = extended(.ioError, 19)
    /// `SQLITE_BUSY_RECOVERY`: another connection is recovering the write-ahead log.
    package static let busyRecovery = extended(.busy, 1)
    /// `SQLITE_BUSY_SNAPSHOT`: a read transaction's snapshot is older than the last commit, so it
    /// cannot become a write transaction.
    package static let busySnapshot = extended(.busy, 2)
    /// `SQLITE_CORRUPT_VTAB`: a virtual table's content is malformed.
    package static let corruptVirtualTable = extended(.corrupt, 1)
    /// `SQLITE_CORRUPT_SEQUENCE`: the `sqlite_sequence` table is malformed.
    package static let corruptSequence = extended(.corrupt, 2)
    /// `SQLITE_CORRUPT_INDEX`: an index disagrees with its table.
    package static let corruptIndex = extended(.corrupt, 3)
    /// `SQLITE_CANTOPEN_ISDIR`: the path names a directory.
    package static let cantOpenIsDirectory = extended(.cantOpen, 2)
    /// `SQLITE_CANTOPEN_FULLPATH`: the path cannot be made absolute.
    package static let cantOpenFullPath = extended(.cantOpen, 3)
    /// `SQLITE_READONLY_RECOVERY`: the write-ahead log needs recovery and the connection cannot write.
    package static let readOnlyRecovery = extended(.readOnly, 1)
    /// `SQLITE_READONLY_CANTLOCK`: a read-only connection cannot take the shared-memory lock.
    package static let readOnlyCantLock = extended(.readOnly, 2)
    /// `SQLITE_READONLY_DBMOVED`: the database file was renamed or unlinked under the connection.
    package static let readOnlyDatabaseMoved = extended(.readOnly, 4)

    /// The extended code `number` of `primary`, as sqlite3.h builds it.
    private static func extended(_ primary: ResultCode, _ number: Int32) -> ResultCode {
        ResultCode(rawValue: primary.rawValue | (number << 8))
    }

    /// Whether this is a primary code (no extended bits).
    package var isPrimary: Bool { rawValue == primary.rawValue }

    package var description: String {
        let text = sqlite3_errstr(rawValue).map { String(cString: $0) } ?? "unknown"
        return "\(rawValue) (\(text))"
    }

    /// Matches a code against a pattern: a primary pattern matches its primary code and every
    /// extended code built on it; an extended pattern matches only itself.
    package static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern.isPrimary ? code.primary == pattern : code == pattern
    }

    /// Matches an error's extended code against a pattern (see the code matching above):
    /// `catch ResultCode.busy` catches `busySnapshot` too; `catch ResultCode.busySnapshot` only it.
    package static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return pattern ~= error.extendedCode
    }
}
