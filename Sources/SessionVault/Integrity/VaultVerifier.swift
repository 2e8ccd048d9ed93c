import Foundation

/// The full scan behind `verify()`: every page, the b-tree structure, the migration history,
/// every session row and every sealed token, the state row and the generation.
///
/// It reads through a read-only connection of its own: the vault's connection has most pages
/// in its cache, and a cached page is not read from disk again, so damage that happened since it
/// was read would go unseen. Read-only, so that the scan changes nothing (the CLI promises it).
///
/// Cost: the page scan is linear in pages (one read, decrypt and HMAC check per page);
/// `PRAGMA integrity_check` is linear in pages and rows; the record checks are linear in rows.
/// Findings are collected, not thrown; only operational failures (busy, unreadable key) throw.
struct VaultVerifier {
    let files: VaultFiles
    let keys: VaultKeys
    /// The generation the header recorded before the scan started, to notice a rollback; nil
    /// when unknown. Read it *before* the database: a writer commits first, then records.
    let headerGeneration: UInt64?
    let migrator = Migrator()

    /// Most findings one structural check reports (SQLite's own default cap is 100).
    static let maximumStructuralFindings = 100

    func run() throws(VaultError) -> VerificationReport {
        let started = ContinuousClock.now
        let diagnosis = CorruptionDiagnosis(files: files, keys: keys)
        let connection: Connection
        do {
            connection = try diagnosis.openReadOnly()
        } catch {
            throw CorruptionDiagnosis.classify(error, files: files)
        }
        // A page cache that holds the whole file (up to 64 MiB): the page scan decrypts and
        // authenticates every page once, and the structural and record checks after it read
        // them from the cache instead of decrypting them a second time (SQLite's default cache
        // is 2 MiB, about 500 of our pages).
        try? connection.execute("PRAGMA cache_size = -65536")
        var findings: [VerificationFinding] = []
        let scan = PageScanner.scan(connection)
        if let page = scan.damagedPage {
            // SQLCipher poisons the read after a failed page (see PageScanner): the structural
            // and record checks would report healthy pages as unreadable. One precise finding
            // beats a hundred misleading ones; the store cannot be trusted either way.
            findings.append(diagnosis.finding(forDamagedPage: page, connection: connection))
        } else if let failure = scan.failure {
            guard let finding = diagnosis.finding(for: failure) else { throw diagnosis.classify(failure) }
            findings.append(finding)
        } else {
            do {
                findings += try connection.readCheckingPageAuthentication {
                    var found = try structure(connection)
                    found += try migrationHistory(connection)
                    found += try records(connection)
                    found += try state(connection, recordsIntact: found.isEmpty)
                    return found
                }
            } catch is PageAuthenticationFailure {
                // A page changed on disk between the scan and the reads (or was read again).
                findings.append(
                    diagnosis.damagedPageFinding()
                        ?? VerificationFinding(kind: .damagedPage, detail: "a page failed authentication while the records were read"))
            } catch let error as SQLiteError {
                guard let finding = diagnosis.finding(for: error) else { throw diagnosis.classify(error) }
                findings.append(finding)
            } catch {
                throw .internalFault("verify: \(error)")
            }
        }
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return VerificationReport(pagesScanned: scan.pagesScanned, findings: findings, elapsed: seconds)
    }

    /// `PRAGMA integrity_check`: b-tree structure, free list, index entries against their rows.
    private func structure(_ connection: Connection) throws(SQLiteError) -> [VerificationFinding] {
        var owners: [String: String] = [:]
        var roots: [Int: String] = [:]
        let schema = try connection.prepare("SELECT name, tbl_name, rootpage FROM sqlite_master WHERE rootpage > 0")
        while try schema.step() {
            guard let name = schema.text(0), let table = schema.text(1) else { continue }
            owners[name] = table
            roots[Int(schema.int64(2))] = table
        }
        let check = try connection.prepare("PRAGMA integrity_check(\(Self.maximumStructuralFindings))")
        var findings: [VerificationFinding] = []
        while try check.step() {
            guard let message = check.text(0), message != "ok" else { continue }
            let page = PageScanner.pageNumber(in: message)
            var table = page.flatMap { roots[$0] }
            if let range = message.range(of: "index ") {
                let name = message[range.upperBound...].prefix { !$0.isWhitespace }
                table = owners[String(name)] ?? table
            }
            findings.append(VerificationFinding(kind: .structuralDamage, detail: message, page: page, table: table))
        }
        return findings
    }

    /// The recorded migrations against the ones this library ships.
    private func migrationHistory(_ connection: Connection) throws(SQLiteError) -> [VerificationFinding] {
        let statement = try connection.prepare("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
        var rows: [AppliedMigration] = []
        while try statement.step() {
            guard let name = statement.text(1), let checksum = statement.text(2) else {
                return [VerificationFinding(kind: .structuralDamage, detail: "a schema_migrations row has no name or checksum", table: "schema_migrations")]
            }
            rows.append(
                AppliedMigration(version: Int(statement.int64(0)), name: name, checksum: checksum, appliedAt: Date(unixMilliseconds: statement.int64(3))))
        }
        do {
            let fromNewerLibrary = rows.contains { $0.version > migrator.newestVersion }
            try migrator.validate(rows, readableSince: fromNewerLibrary ? try migrator.readableSince(in: connection) : nil)
        } catch {
            let kind: CorruptionKind
            switch error {
            case .checksumMismatch: kind = .migrationChecksumMismatch
            // A newer library's schema this one may not read: the open sets such a vault aside
            // before verify can run; reached only by a file changed while open.
            case .futureSchema, .newerFormat: kind = .futureSchema
            case .malformedHistory, .sqlite, .completionFailed: kind = .structuralDamage
            }
            return [VerificationFinding(kind: kind, detail: error.description, table: "schema_migrations")]
        }
        return []
    }

    /// Every session row: its invariants, and both sealed tokens opened and matched against
    /// their fingerprints (a seal moved to another row, column or version does not open), and
    /// a DPoP session's sealed proof key opened. A key that does not open is reported as
    /// `recordAuthenticationFailed`, as its seal says; the session answers `proofKeyLost` then
    /// (its tokens are useless without the key), it is not recovered.
    private func records(_ connection: Connection) throws(SQLiteError) -> [VerificationFinding] {
        let statement = try connection.prepare("SELECT \(SessionRecord.selectList) FROM sessions")
        var findings: [VerificationFinding] = []
        while try statement.step() {
            let id = statement.text(SessionRecord.Column.id.position)
            do {
                let row = try SessionRecord(reading: statement)
                _ = try row.openTokens(with: keys)
                _ = try row.openProofKey(with: keys)
            } catch {
                findings.append(VerificationFinding(kind: error.kind, detail: error.detail, table: "sessions", sessionID: id))
            }
        }
        return findings
    }

    /// The state row: present, a positive generation not behind the header's, a current session
    /// that exists, and a seal that matches them (a page put back from an older copy does not).
    private func state(_ connection: Connection, recordsIntact: Bool) throws(SQLiteError) -> [VerificationFinding] {
        let statement = try connection.prepare("SELECT current_session_id, generation FROM vault_state WHERE singleton = 1")
        guard try statement.step() else {
            return [VerificationFinding(kind: .invariantViolation, detail: "the vault_state row is missing", table: "vault_state")]
        }
        let current = statement.text(0)
        let generation = statement.int64(1)
        statement.reset()
        var findings: [VerificationFinding] = []
        if generation <= 0 {
            findings.append(VerificationFinding(kind: .invariantViolation, detail: "generation \(generation) is not positive", table: "vault_state"))
        }
        if let headerGeneration, generation > 0, UInt64(generation) < headerGeneration {
            let walDamaged = CorruptionDiagnosis.walHasFrames(files)
            findings.append(
                VerificationFinding(
                    kind: walDamaged ? .damagedWAL : .rollback,
                    detail: "the database is at generation \(generation) but the header saw \(headerGeneration)"
                        + (walDamaged ? "; the write-ahead log lost committed frames" : ": an older copy was put back"),
                    table: "vault_state"))
        }
        if let current {
            let exists = try connection.scalarInt("SELECT count(*) FROM sessions WHERE id = ?", [.text(current)]) ?? 0
            if exists == 0 {
                findings.append(
                    VerificationFinding(
                        kind: .invariantViolation, detail: "the current session \(current) does not exist",
                        table: "vault_state", sessionID: current))
            }
        }
        // A file whose schema predates the seal (read here without migrating) has none to check.
        // Checked when nothing else was found: damage with a name of its own keeps that name.
        let sealed = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'vault_state' AND sql LIKE '%state_mac%'") ?? 0
        if sealed > 0, recordsIntact, findings.isEmpty, let mismatch = try StateSeal.mismatch(connection, keys: keys) {
            findings.append(VerificationFinding(kind: mismatch.kind, detail: mismatch.detail, table: "sessions", sessionID: current))
        }
        return findings
    }
}
