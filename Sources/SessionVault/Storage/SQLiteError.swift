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
