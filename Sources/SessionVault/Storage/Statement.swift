import CSQLCipher

/// A prepared statement. It is prepared in the initializer and finalized in `deinit`, so a
/// statement can never leak, whatever path the caller takes out of a function.
final class Statement {
    private let handle: OpaquePointer
    private unowned let connection: Connection
    let sql: String

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection.handle, sql, -1, &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw connection.error(rc, sql: sql)
        }
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement and binds `values` to its parameters, in order.
    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null:
                rc = sqlite3_bind_null(handle, index)
            case .integer(let number):
                rc = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                rc = sqlite3_bind_text(handle, index, text, -1, Statement.transient)
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { buffer in
                    // A zero-length blob still needs a non-nil pointer, or SQLite stores NULL.
                    sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Statement.transient)
                }
            }
            try connection.check(rc, sql: sql)
        }
    }

    /// Advances to the next row: `true` when a row is ready, `false` when the statement is done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds, runs to completion and resets: for statements that return no rows.
    func run(_ values: [SQLValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Releases the read lock a finished SELECT may still hold.
    func reset() { sqlite3_reset(handle) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }

    func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column's storage type and, for text and blobs, its bytes as SQLite holds them,
    /// without a Swift `String` or `Array` in between: for hashing many columns cheaply. An
    /// integer comes as its value (no bytes); a REAL, which the vault never writes, as its text.
    func withRawColumn<T>(_ column: Int32, _ body: (RawColumn) -> T) -> T {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return body(.null)
        case SQLITE_INTEGER:
            return body(.integer(sqlite3_column_int64(handle, column)))
        case SQLITE_BLOB:
            let pointer = sqlite3_column_blob(handle, column)
            return body(.blob(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))))
        default:
            let pointer = sqlite3_column_text(handle, column)
            return body(.text(UnsafeRawBufferPointer(start: pointer.map(UnsafeRawPointer.init), count: Int(sqlite3_column_bytes(handle, column)))))
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

/// A column value borrowed from a stepped statement: valid only inside
/// `Statement.withRawColumn`, where SQLite still owns the bytes.
enum RawColumn {
    case null
    case integer(Int64)
    case text(UnsafeRawBufferPointer)
    case blob(UnsafeRawBufferPointer)
}

/// A value bound to, or read from, an SQL statement.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

extension Optional where Wrapped == String {
    var sqlValue: SQLValue { map(SQLValue.text) ?? .null }
}

extension Optional where Wrapped == Int64 {
    var sqlValue: SQLValue { map(SQLValue.integer) ?? .null }
}

extension Optional where Wrapped == [UInt8] {
    var sqlValue: SQLValue { map(SQLValue.blob) ?? .null }
}
