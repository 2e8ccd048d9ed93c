import CSQLCipher

/// One SQLCipher database connection.
///
/// Not `Sendable`: one serial owner (the `Vault` actor) uses it. Every C return value goes
/// through `check(_:sql:)`, which turns it into a typed `SQLiteError`.
final class Connection {
    let handle: OpaquePointer
    let path: String
    private var statementCache: [String: Statement] = [:]
    /// Set by `close()`, so that `deinit` does not close the handle a second time.
    private var isClosed = false
    /// This connection's entry in `OpenDatabaseFiles` (keyed connections only).
    private var registration: AnyHashable?

    /// Opens (and, with `create`, creates) the file at `path`. Wraps `sqlite3_open_v2`.
    init(path: String, create: Bool, readOnly: Bool = false) throws(SQLiteError) {
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // The Vault actor serializes use, so SQLite's own mutex is unneeded.
        flags |= SQLITE_OPEN_NOMUTEX
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            let code = handle.map { sqlite3_extended_errcode($0) } ?? rc
            // sqlite3_open_v2 hands back a handle even on failure; it must still be closed.
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedCode: ResultCode(rawValue: code), message: message)
        }
        self.handle = handle
        self.path = path
        // SQLite 3.15 has no SQLITE_OPEN_EXRESCODE; this is its equivalent.
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        guard !isClosed else { return }
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        OpenDatabaseFiles.unregister(registration)
    }

    /// Closes the connection now rather than whenever its last reference goes away.
    ///
    /// Why: when `deinit` runs is up to ARC, and the optimizer moves it. A close that must happen
    /// at a given point, such as `CorruptionDiagnosis.closePreservingEvidence` closing a refused
    /// connection while another connection holds the file, calls this instead; in a release build
    /// the refused connection was deinitialized before that holder was even opened, and its close
    /// checkpointed the write-ahead log away. The cached statements are finalized first: with a
    /// statement left, SQLite only marks the connection for closing and closes it when the last one
    /// is finalized, out of the caller's hands. Nothing may use the connection afterwards.
    ///
    /// - Returns: false when a statement prepared outside the cache is still alive elsewhere; the
    ///   connection then closes when that statement is finalized (`sqlite3_close_v2`).
    @discardableResult
    func close() -> Bool {
        guard !isClosed else { return true }
        isClosed = true
        statementCache.removeAll()
        defer { OpenDatabaseFiles.unregister(registration) }
        // sqlite3_close refuses (SQLITE_BUSY) rather than defer while a statement is unfinalized,
        // which tells the caller the close did not happen here; the connection is then handed to
        // sqlite3_close_v2 so that it is never leaked.
        if sqlite3_close(handle) == SQLITE_OK { return true }
        sqlite3_close_v2(handle)
        return false
    }

    /// Keys the connection. `rawKey` is SQLCipher's raw-key form `x'<64 hex>'`, which skips its
    /// PBKDF2 (about 0.3 ms per open instead of about 31 ms). Wraps `sqlite3_key`.
    func key(_ rawKey: UnsafeRawBufferPointer) throws(SQLiteError) {
        try check(sqlite3_key(handle, rawKey.baseAddress, Int32(rawKey.count)), sql: nil)
        // Only keyed connections count: a plain SQLite file the process has open through this
        // type (a test, a tool) is still checked, and refused, at every open.
        if registration == nil { registration = OpenDatabaseFiles.register(path) }
    }

    /// Re-encrypts every page under a new raw key. Wraps `sqlite3_rekey`.
    func rekey(_ rawKey: UnsafeRawBufferPointer) throws(SQLiteError) {
        try check(sqlite3_rekey(handle, rawKey.baseAddress, Int32(rawKey.count)), sql: nil)
    }

    /// Runs one or more statements that return no rows we need. Wraps `sqlite3_exec`.
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql: sql)
    }

    /// A new prepared statement.
    func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// A prepared statement kept for the life of the connection: the hot paths (launch, rotate,
    /// touch) run the same few statements, and preparing is a measurable part of their cost.
    func cached(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement with bound values.
    func run(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) {
        try cached(sql).run(values)
    }

    /// The first column of the first row, as text (e.g. a PRAGMA's answer).
    func scalarText(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> String? {
        let statement = try cached(sql)
        try statement.bind(values)
        // Reset before returning: a SELECT left on a row keeps its read transaction open.
        defer { statement.reset() }
        return try statement.step() ? statement.text(0) : nil
    }

    /// The first column of the first row, as an integer.
    func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.optionalInt64(0) : nil
    }

    /// Runs `body` in a transaction: committed if it returns, rolled back if it throws. A failed
    /// BEGIN or COMMIT is thrown as the body's own error type.
    func transaction<T, E: SQLiteFailureCarrying>(_ kind: TransactionKind = .immediate, _ body: () throws(E) -> T) throws(E) -> T {
        do { try begin(kind) } catch { throw E(sqliteFailure: error) }
        do throws(E) {
            let result = try body()
            do { try execute("COMMIT") } catch { throw E(sqliteFailure: error) }
            return result
        } catch {
            // The rollback's own failure (e.g. no transaction left after an I/O error) must not
            // hide the error that caused it.
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// The same for a body whose errors are of several types, thrown as they came.
    func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        do {
            return try transaction(kind) { () throws(AnyTransactionFailure) -> T in
                do { return try body() } catch { throw AnyTransactionFailure(error) }
            }
        } catch {
            throw error.underlying
        }
    }

    /// How many busy timeouts a write transaction waits for the write lock before busy reaches
    /// the caller.
    static let writeLockRounds = 3

    /// Starts a transaction. A write transaction that found the lock busy for a whole busy
    /// timeout tries again, up to `writeLockRounds` times: SQLite's busy handler polls (sleeping
    /// up to 100 ms between tries) and grants no turn, so under heavy contention a writer can
    /// lose the lock to the others again and again. Measured: four processes storing, rotating
    /// and signing out at once, on a loaded machine, had a writer wait its full 5 s with no
    /// statement of its own open (ContentionTests). A lock held for good still surfaces.
    private func begin(_ kind: TransactionKind) throws(SQLiteError) {
        var round = 1
        while true {
            do {
                try execute(kind.rawValue)
                return
            } catch {
                guard kind != .deferred, error.extendedCode == .busy, round < Self.writeLockRounds else { throw error }
                round += 1
            }
        }
    }

    /// Makes closing this connection leave the `-wal` and `-shm` files where they are.
    ///
    /// For a connection whose database file was unlinked or replaced by another process (a wipe,
    /// a rekey): closing it normally finds no other user of the old file, checkpoints, and
    /// deletes `-wal` and `-shm` *by name*, which by now are the new database's, in use by others.
    func keepLogFilesOnClose() {
        var persist: Int32 = 1
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Sets how long a locked database is retried before SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Throws a typed error unless `rc` is SQLITE_OK.
    func check(_ rc: Int32, sql: String?) throws(SQLiteError) {
        guard rc != SQLITE_OK else { return }
        throw error(rc, sql: sql)
    }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        // sqlite3_extended_errcode reports the last failure on the handle; when it disagrees
        // with rc (e.g. after a reset), rc is the truth.
        let code = (extended & 0xFF) == (rc & 0xFF) ? extended : rc
        return SQLiteError(
            extendedCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql,
            systemErrno: sqlite3_system_errno(handle))
    }

    /// The SQLite library version string (for SQLCipher 3.4.1 on Debian: 3.15.2).
    static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}

/// Carries an untyped body's error through the typed `Connection.transaction`: for bodies that
/// mix engine, record and vault errors and leave the mapping to one place above
/// (`VaultError(underlying:files:)`).
struct AnyTransactionFailure: SQLiteFailureCarrying {
    let underlying: any Error

    init(_ underlying: any Error) { self.underlying = underlying }

    init(sqliteFailure failure: SQLiteError) { underlying = failure }
}

/// How a transaction takes its locks.
enum TransactionKind: String, Sendable {
    /// Takes the write lock at BEGIN: a busy database fails up front, not halfway through.
    case immediate = "BEGIN IMMEDIATE"
    /// Takes locks lazily: for read-only work.
    case deferred = "BEGIN DEFERRED"
}
