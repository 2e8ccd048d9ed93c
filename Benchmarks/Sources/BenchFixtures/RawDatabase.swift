import CSQLCipherBench

/// A failure of the raw C API in a baseline or fixture (SQLite's message, never a bound value).
package struct RawDatabaseError: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String
    package var description: String { "SQLite error \(code): \(message)" }

    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}

/// The SQLCipher C API with nothing in between: the baselines must cost what a plain app using
/// SQLite directly would pay, so this wrapper only checks return codes.
package final class RawDatabase {
    package let handle: OpaquePointer

    /// Opens `path` read-write (creating it with `create`) or read-only, without SQLite's mutex, like the vault.
    package init(path: String, create: Bool = false, readOnly: Bool = false) throws {
        var flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw RawDatabaseError(code: rc, message: message)
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { sqlite3_close_v2(handle) }

    /// `sqlite3_key` with these bytes: a passphrase (PBKDF2 runs) or the raw-key form `x'…'`.
    package func key(_ bytes: [UInt8]) throws {
        try check(bytes.withUnsafeBytes { sqlite3_key(handle, $0.baseAddress, Int32($0.count)) })
    }

    /// The cipher settings the library pins on every vault connection (`pinCipherSettings`):
    /// 4096-byte pages, HMAC-SHA1, PBKDF2-HMAC-SHA1. A raw connection that pins the page size
    /// only reads a vault on SQLCipher 3.x (whose defaults are SHA1) and fails on 4.x (SHA512
    /// defaults: "file is not a database"). 3.x ignores the PRAGMAs it does not know.
    package func pinVaultCipherSettings() throws {
        try execute(
            """
            PRAGMA cipher_page_size = 4096;
            PRAGMA cipher_use_hmac = ON;
            PRAGMA cipher_hmac_algorithm = HMAC_SHA1;
            PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;
            """)
    }

    package func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    package func prepare(_ sql: String) throws -> RawStatement {
        try RawStatement(database: self, sql: sql)
    }

    /// The first column of the first row as an integer.
    package func scalarInt(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : nil
    }

    /// The first column of the first row as text.
    package func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(0) : nil
    }

    package func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw RawDatabaseError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }
    }
}

/// A prepared statement, finalized on release.
package final class RawStatement {
    package let handle: OpaquePointer
    private let database: RawDatabase

    package init(database: RawDatabase, sql: String) throws {
        var handle: OpaquePointer?
        let rc = sqlite3_prepare_v2(database.handle, sql, -1, &handle, nil)
        guard rc == SQLITE_OK, let handle else {
            sqlite3_finalize(handle)
            throw RawDatabaseError(code: rc, message: String(cString: sqlite3_errmsg(database.handle)))
        }
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    package func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    package func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
    package func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(handle, index, text, -1, rawTransient) }
    package func bind(_ index: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), rawTransient) }
    }

    /// true: a row is ready; false: done.
    @discardableResult
    package func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw RawDatabaseError(code: rc, message: String(cString: sqlite3_errmsg(database.handle)))
    }

    /// Steps to completion, then resets.
    package func run() throws {
        while try step() {}
        sqlite3_reset(handle)
    }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    package func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    package func text(_ column: Int32) -> String? { sqlite3_column_text(handle, column).map { String(cString: $0) } }
    package func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// SQLITE_TRANSIENT: SQLite copies bound bytes before the call returns.
package let rawTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
