import CSQLCipher

/// An SQLite result code (primary or extended), with named constants so callers can write
/// `catch ResultCode.busy` instead of comparing raw integers.
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code (the low byte) of an extended result code.
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let ok = ResultCode(rawValue: SQLITE_OK)
    public static let error = ResultCode(rawValue: SQLITE_ERROR)
    public static let permission = ResultCode(rawValue: SQLITE_PERM)
    public static let abort = ResultCode(rawValue: SQLITE_ABORT)
    public static let busy = ResultCode(rawValue: SQLITE_BUSY)
    public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
    public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
    public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
    public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = ResultCode(rawValue: SQLITE_FULL)
    public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
    public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
    public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
    public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
    public static let row = ResultCode(rawValue: SQLITE_ROW)
    public static let done = ResultCode(rawValue: SQLITE_DONE)

    public var description: String {
        let text = sqlite3_errstr(rawValue).map { String(cString: $0) } ?? "unknown"
        return "\(rawValue) (\(text))"
    }

    /// Matches an error against a primary code: `catch ResultCode.busy`.
    public static func ~= (pattern: ResultCode, error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return error.code.primary == pattern.primary
    }
}
