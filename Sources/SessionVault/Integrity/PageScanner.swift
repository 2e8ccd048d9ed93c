import CSQLCipher

/// Reads every page of a keyed database through SQLCipher's codec, so that each page's HMAC is
/// checked: the "damaged page found by a full scan" entry of the taxonomy.
///
/// What SQLCipher 3.4.1 on SQLite 3.15.2 (Debian bookworm) offers for this, as measured here:
/// - no `PRAGMA cipher_integrity_check` (SQLCipher 4.x only; 3.4.1 ignores the unknown PRAGMA
///   and answers nothing, which must not be read as "clean");
/// - no `dbstat` virtual table (the library is built without SQLITE_ENABLE_DBSTAT_VTAB);
/// - `PRAGMA integrity_check` reads b-tree and overflow pages but never the leaves of the
///   freelist, so a damaged free page would go unnoticed.
/// The online-backup API does fetch pages 1...N in order through the pager, hence the codec:
/// the scan copies them into a throwaway in-memory database (plaintext pages stay in process
/// memory, as they do in any connection's page cache; nothing reaches the disk). One step, one
/// read transaction: linear in pages.
///
/// Two behaviours of SQLCipher 3.4.1 shape the code (both reproduced in the tests):
/// - a page whose HMAC fails is handed to SQLite zeroed with SQLITE_OK; the codec only records
///   SQLITE_ERROR on the connection (`sqlite3_errcode`) and in the pager, so the *next* page
///   fetch fails. A damaged last page therefore ends the copy with SQLITE_DONE: the connection's
///   error code is checked too.
/// - ending the read transaction after that error resets the pager, which restarts an attached
///   backup at page 1: the scan cannot continue past the first damaged page, and stepping page
///   by page must stop at the first flagged page or it would loop. So the fast single step runs
///   first, and only when it fails does a second pass step page by page to name the page.
///
/// SQLCipher 4.x refuses a backup from an encrypted database into a plain one, and has
/// `PRAGMA cipher_integrity_check` instead (one row per page that fails); on 4.x that is used.
/// `make test` runs the 3.x path (Debian's 3.4.1), `make test-sqlcipher4` the 4.x one.
enum PageScanner {
    /// Scans every page reachable by the pager of `connection` (which must be keyed and must not
    /// be inside a transaction).
    static func scan(_ connection: Connection) -> PageScanResult {
        if usesCipherIntegrityCheck(connection) {
            return scanWithCipherIntegrityCheck(connection)
        }
        return scanWithBackup(connection.handle)
    }

    /// Whether `scan` takes the 4.x path (`cipher_integrity_check`) on this connection's engine
    /// rather than the 3.x one (the online backup); the tests check each on its engine.
    static func usesCipherIntegrityCheck(_ connection: Connection) -> Bool {
        guard let version = try? connection.cipherVersion() else { return false }
        return majorVersion(version) >= 4
    }

    /// The first page number a message names ("Page 7: ...", "HMAC verification failed for
    /// page 7", "On tree page 7 cell 2: ..."), if any.
    static func pageNumber(in message: String) -> Int? {
        let lower = Array(message.lowercased().utf8)
        let word = Array("page".utf8)
        var index = 0
        while index + word.count < lower.count {
            if Array(lower[index..<(index + word.count)]) == word {
                var cursor = index + word.count
                while cursor < lower.count, lower[cursor] == UInt8(ascii: " ") { cursor += 1 }
                var number = 0
                var digits = 0
                while cursor < lower.count, lower[cursor] >= UInt8(ascii: "0"), lower[cursor] <= UInt8(ascii: "9"), digits < 10 {
                    number = number * 10 + Int(lower[cursor] - UInt8(ascii: "0"))
                    cursor += 1
                    digits += 1
                }
                if digits > 0 { return number }
            }
            index += 1
        }
        return nil
    }

    // MARK: SQLCipher 3.x: the backup API

    private static func scanWithBackup(_ source: OpaquePointer) -> PageScanResult {
        let whole = copyPages(from: source, pagesPerStep: -1)
        if whole.failure == nil && !whole.flagged && whole.result == SQLITE_DONE {
            return PageScanResult(pagesScanned: Int(whole.pageCount), pageCount: Int(whole.pageCount), damagedPage: nil, failure: nil)
        }
        if whole.flagged || whole.result == SQLITE_ERROR || whole.result == SQLITE_CORRUPT || whole.result == SQLITE_NOTADB {
            if let located = locateDamagedPage(in: source, pageCount: whole.pageCount) { return located }
        }
        let error =
            whole.failure
            ?? SQLiteError(
                extendedCode: ResultCode(rawValue: whole.result),
                message: String(cString: sqlite3_errstr(whole.result)))
        return PageScanResult(pagesScanned: 0, pageCount: Int(whole.pageCount), damagedPage: nil, failure: error)
    }

    /// The outcome of one backup run.
    private struct Copy {
        var result: Int32
        var flagged: Bool
        var pageCount: Int32
        var failure: SQLiteError?
    }

    private static func copyPages(from source: OpaquePointer, pagesPerStep: Int32) -> Copy {
        clearErrorCode(source)
        var destination: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let destination
        else {
            sqlite3_close_v2(destination)
            return Copy(
                result: SQLITE_NOMEM, flagged: false, pageCount: 0,
                failure: SQLiteError(extendedCode: .noMemory, message: "cannot open an in-memory database for the page scan"))
        }
        defer { sqlite3_close_v2(destination) }
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else {
            return Copy(
                result: sqlite3_errcode(destination), flagged: false, pageCount: 0,
                failure: SQLiteError(
                    extendedCode: ResultCode(rawValue: sqlite3_extended_errcode(destination)),
                    message: String(cString: sqlite3_errmsg(destination))))
        }
        let result = sqlite3_backup_step(backup, pagesPerStep)
        let flagged = sqlite3_errcode(source) != SQLITE_OK
        let pageCount = sqlite3_backup_pagecount(backup)
        sqlite3_backup_finish(backup)
        return Copy(result: result, flagged: flagged, pageCount: pageCount, failure: nil)
    }

    /// Steps one page at a time until the codec flags a page. Only run after a failed scan.
    private static func locateDamagedPage(in source: OpaquePointer, pageCount: Int32) -> PageScanResult? {
        clearErrorCode(source)
        var destination: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
            let destination
        else {
            sqlite3_close_v2(destination)
            return nil
        }
        defer { sqlite3_close_v2(destination) }
        guard let backup = sqlite3_backup_init(destination, "main", source, "main") else { return nil }
        defer { sqlite3_backup_finish(backup) }
        // Bounded by the page count the backup reports after each step: a damaged page
        // restarts the backup (see the type's comment), so the loop must never rely on
        // reaching SQLITE_DONE.
        var bound = Int(max(pageCount, 1)) + 1
        var page = 0
        while page < bound {
            page += 1
            let result = sqlite3_backup_step(backup, 1)
            if sqlite3_errcode(source) != SQLITE_OK {
                return PageScanResult(
                    pagesScanned: page, pageCount: max(Int(sqlite3_backup_pagecount(backup)), page),
                    damagedPage: page, failure: nil)
            }
            guard result == SQLITE_OK else { return nil }
            bound = Int(sqlite3_backup_pagecount(backup)) + 1
        }
        return nil
    }

    /// A successful statement resets the connection's error code, so that the codec's flag is
    /// the only thing that can set it during the scan.
    private static func clearErrorCode(_ connection: OpaquePointer) {
        _ = sqlite3_exec(connection, "SELECT 1", nil, nil, nil)
    }

    // MARK: SQLCipher 4.x

    private static func scanWithCipherIntegrityCheck(_ connection: Connection) -> PageScanResult {
        do {
            let pageCount = Int(try connection.scalarInt("PRAGMA page_count") ?? 0)
            let statement = try connection.prepare("PRAGMA cipher_integrity_check")
            var damaged: Int?
            while try statement.step() {
                if damaged == nil, let message = statement.text(0) { damaged = pageNumber(in: message) ?? 0 }
            }
            return PageScanResult(pagesScanned: pageCount, pageCount: pageCount, damagedPage: damaged, failure: nil)
        } catch {
            return PageScanResult(pagesScanned: 0, pageCount: 0, damagedPage: nil, failure: error)
        }
    }

    static func majorVersion(_ version: String) -> Int {
        Int(version.prefix(while: { $0.isNumber })) ?? 0
    }
}

/// What one pass over every page of a database found.
struct PageScanResult: Sendable, Equatable {
    /// Pages fetched through the codec, the damaged one included.
    var pagesScanned: Int
    /// The database's size in pages, as its pager sees it (file plus write-ahead log).
    var pageCount: Int
    /// The first page whose HMAC did not verify (page numbers start at 1), if any.
    var damagedPage: Int?
    /// A failure not pinned to one page: the database could not be read at all (e.g. page 1
    /// records more pages than the file holds), or an operational error (busy, I/O).
    var failure: SQLiteError?

    /// Every page read and authenticated.
    var isClean: Bool { damagedPage == nil && failure == nil }
}
