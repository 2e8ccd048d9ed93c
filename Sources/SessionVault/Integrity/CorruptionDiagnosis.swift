import CSQLCipher
import Foundation

/// Names the damage behind a failure, on the failure path only (never on a healthy open).
///
/// SQLite reports most kinds of damage with the same two codes: SQLITE_CORRUPT ("database disk
/// image is malformed") and, for pages that SQLCipher refused, a zeroed page that surfaces as
/// SQLITE_CORRUPT or SQLITE_ERROR. The diagnosis looks closer with read-only connections of its
/// own: read-only so that they can never write or checkpoint, and opened while the caller's
/// connection still holds the file, so that nothing is changed before the evidence is recorded.
package struct CorruptionDiagnosis {
    let files: VaultFiles
    let keys: VaultKeys

    /// Size of a write-ahead log header; a longer log holds frames.
    package static let walHeaderSize: Int64 = 32

    /// Whether the write-ahead log holds frames (committed or not). A log that outlived its last
    /// connection means the previous process did not close the vault (a crash, or it is still
    /// running); its frames may hold commits the database file does not have yet.
    static func walHasFrames(_ files: VaultFiles) -> Bool {
        (FileIO.size(files.wal) ?? 0) > walHeaderSize
    }

    /// Truncation to a whole number of pages: page 1 authenticates but records more pages than
    /// the file holds. SQLite refuses such a file with a bare SQLITE_CORRUPT. Only meaningful
    /// when the write-ahead log is empty (pages may legitimately live only in the log until a
    /// checkpoint).
    func truncation() -> CorruptionReason? {
        guard !Self.walHasFrames(files), let size = FileIO.size(files.database) else { return nil }
        let pageSize = Int64(VaultHeader.cipherPageSize)
        let filePages = size / pageSize
        guard let recorded = recordedPageCount(), recorded > filePages else { return nil }
        return CorruptionReason(.truncated, "page 1 records \(recorded) pages of \(pageSize) bytes; the file holds \(filePages) (\(size) bytes)")
    }

    /// Pages of the sparse probe copy in `recordedPageCount` (4 GiB of holes, no disk used).
    static let probePages: Int64 = 1 << 20

    /// The database size in pages that page 1 records (its header's bytes 28–31, encrypted on
    /// disk, so read through SQLCipher), or nil when it cannot be told.
    ///
    /// Why a copy: `PRAGMA page_count` answers min(recorded, pages in the file) under
    /// `writable_schema` on SQLite 3.39+ (SQLCipher 4.5.2+), and SQLite 3.15 (SQLCipher 3.4.1)
    /// answers the recorded count. A copy of the (still encrypted) file extended with a sparse
    /// hole past any real vault size makes both answer the recorded count: the hole's pages are
    /// never read. The copy holds ciphertext only, lives in a private temporary directory and is
    /// removed before returning; failure path only.
    func recordedPageCount() -> Int64? {
        let pageSize = Int64(VaultHeader.cipherPageSize)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sessionvault-diagnosis-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let probe = directory.appendingPathComponent("probe.db").path
        do {
            try FileManager.default.copyItem(atPath: files.database, toPath: probe)
        } catch {
            return nil
        }
        guard truncate(probe, off_t(Self.probePages * pageSize)) == 0 else { return nil }
        do {
            // Read-write: the copy is ours, and a read-only open of a WAL-mode file needs its
            // shared-memory file.
            let connection = try Connection.keyed(probe, keys: keys)
            try connection.execute("PRAGMA writable_schema = ON")
            // A count equal to the probe's size is SQLite falling back to the file size (a
            // header whose count it does not trust): not evidence either way.
            guard let recorded = try connection.scalarInt("PRAGMA page_count"), recorded > 0, recorded < Self.probePages else { return nil }
            return recorded
        } catch {
            return nil
        }
    }

    /// Scans every page and, when one fails authentication, says which page and, when it can
    /// be told, which table or index it belongs to.
    func damagedPageFinding() -> VerificationFinding? {
        guard let connection = try? openReadOnly() else { return nil }
        let scan = PageScanner.scan(connection)
        guard let page = scan.damagedPage else { return nil }
        return finding(forDamagedPage: page, connection: connection)
    }

    /// The finding for a page the scan found damaged, with its owner when it can be told.
    func finding(forDamagedPage page: Int, connection: Connection) -> VerificationFinding {
        let owner = owner(ofDamagedPageIn: connection)
        let place: String
        switch owner {
        case .some(let name):
            place = " (part of \(name.object == name.table ? "table \(name.table)" : "index \(name.object) of table \(name.table)"))"
        case .none:
            place = " (reached by no table or index: a free page)"
        }
        let pageText = page > 0 ? "page \(page)" : "a page"
        return VerificationFinding(
            kind: .damagedPage, detail: "\(pageText) failed authentication (HMAC): altered or damaged on disk\(place)",
            page: page > 0 ? page : nil, table: owner?.table)
    }

    /// Finds the table or index whose pages include the damaged one: each is read in full in a
    /// read transaction of its own, then probed (see `readCheckingPageAuthentication`). Failure
    /// path only: it costs a few reads of the whole file.
    private func owner(ofDamagedPageIn connection: Connection) -> (object: String, table: String)? {
        var objects: [(type: String, name: String, table: String)] = []
        do {
            let statement = try connection.prepare("SELECT type, name, tbl_name FROM sqlite_master WHERE rootpage > 0 ORDER BY rootpage")
            while try statement.step() {
                if let type = statement.text(0), let name = statement.text(1), let table = statement.text(2) {
                    objects.append((type, name, table))
                }
            }
        } catch {
            // The schema's own pages are the damaged ones.
            return ("sqlite_master", "sqlite_master")
        }
        for object in objects {
            let sql =
                object.type == "index"
                ? "SELECT count(*) FROM \(quoted(object.table)) INDEXED BY \(quoted(object.name))"
                : "SELECT * FROM \(quoted(object.name))"
            let readFails: Bool
            do {
                try connection.readCheckingPageAuthentication { try readEveryValue(connection, sql) }
                readFails = false
            } catch is PageAuthenticationFailure {
                readFails = true
            } catch let error as SQLiteError where error.code == .corrupt {
                readFails = true
            } catch {
                // Not damage (e.g. the planner refused the index): this object is not the owner.
                readFails = false
            }
            if readFails { return (object.name, object.table) }
        }
        return nil
    }

    /// Steps through every row and touches every value, so overflow pages are read too.
    private func readEveryValue(_ connection: Connection, _ sql: String) throws {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection.handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw connection.error(prepared, sql: sql) }
        let columns = sqlite3_column_count(statement)
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return }
            guard result == SQLITE_ROW else { throw connection.error(result, sql: sql) }
            for column in 0..<columns { _ = sqlite3_column_bytes(statement, column) }
        }
    }

    private func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A keyed, read-only connection on the database (it cannot write or checkpoint).
    func openReadOnly() throws(SQLiteError) -> Connection {
        try Connection.keyed(files.database, keys: keys, readOnly: true)
    }

    /// Closes `connection` without letting SQLite checkpoint the write-ahead log into the
    /// database and delete it, which the last connection to close normally does.
    ///
    /// Why: on the corruption path the log is evidence. A damaged log is told apart from a
    /// rollback by its frames; checkpointing the frames that survive and deleting the log would
    /// turn the next open's (and the CLI's) `damagedWAL` into `rollback`. SQLite 3.15 has no
    /// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE (3.16), so a read-only connection that has read the
    /// file holds its shared lock while `connection` closes: the close cannot take the
    /// exclusive lock a checkpoint needs. The read-only connection cannot checkpoint either.
    ///
    /// The close is explicit (`Connection.close()`), while the holder is open, and does not wait
    /// for the last reference to go: a release build deinitialized the refused connection
    /// before the holder was opened (found by the vault-open fuzz target), and another reference
    /// (a caller's binding, a statement) would make it close after the holder is gone.
    func closePreservingEvidence(_ connection: inout Connection?) {
        guard let refused = connection else { return }
        let holder = try? openReadOnly()
        _ = try? holder?.scalarInt("PRAGMA schema_version")
        refused.close()
        connection = nil
        holder?.close()
    }
}
