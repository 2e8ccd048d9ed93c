import Foundation
@testable import SessionVault

/// Ways to damage a real vault, each producing one entry of the taxonomy. Every scenario starts
/// from a fresh `DamageFixture` and returns it damaged (and closed).
enum Scenarios {
    /// One real scenario for every kind. The switch is exhaustive: a new kind does not compile
    /// until it has a scenario.
    static func damaged(for kind: CorruptionKind) async throws -> DamageFixture {
        switch kind {
        case .keyMissing: return try await keyFileDeleted()
        case .wrongKey: return try await wrongKey()
        case .notADatabase: return try await randomBytesOfTheRightSize()
        case .truncated: return try await truncatedAtAPageBoundary()
        case .damagedPage: return try await damagedAuditLogPage()
        case .structuralDamage: return try await indexPointingAtAnotherTree()
        case .migrationChecksumMismatch: return try await migrationChecksumChanged()
        case .futureSchema: return try await migrationFromTheFuture()
        case .recordAuthenticationFailed: return try await sealMovedToAnotherColumn()
        case .invariantViolation: return try await refreshExpiryBeforeIssue()
        case .rollback: return try await olderCopyRestored()
        case .damagedWAL: return try await damagedWriteAheadLog(offsetFromEnd: 200)
        case .headerDamaged: return try await headerBothSlotsDamaged()
        }
    }

    // MARK: Key and header

    static func keyFileDeleted() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try FileManager.default.removeItem(atPath: fixture.keyPath)
        return fixture
    }

    /// A byte of the key itself changed: the key file's checksum no longer matches.
    static func keyFileDamaged() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.flipByte(at: 20, in: fixture.keyPath)
        return fixture
    }

    /// Another valid key file in place of the vault's (a restore from another device).
    static func wrongKey() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        // Another vault's key in its place: the old key's generation record goes with it (a
        // record left behind is another key's and is never destroyed by this vault's wipe).
        try FileManager.default.removeItem(atPath: fixture.keyPath)
        try FileManager.default.removeItem(atPath: fixture.keys.generationRecordPath)
        try KeyFileProvider.create(at: fixture.keyPath)
        return fixture
    }

    static func headerDeleted() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try FileManager.default.removeItem(atPath: fixture.files.header)
        return fixture
    }

    /// A byte of each slot's checksummed fields changed: both slots fail their checksums, while
    /// both still start with our magic (the proof that the file is a damaged header of ours).
    static func headerBothSlotsDamaged() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.flipByte(at: 40, in: fixture.files.header)
        try fixture.flipByte(at: VaultHeader.slotSize + 40, in: fixture.files.header)
        return fixture
    }

    /// Both slots of the header overwritten with zeros (no magic left: not provably ours).
    static func headerZeroed() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try Data(count: VaultHeader.fileSize).write(to: URL(fileURLWithPath: fixture.files.header))
        return fixture
    }

    // MARK: The database file

    static func randomBytesOfTheRightSize() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let size = fixture.size()
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.path))
        return fixture
    }

    /// The database replaced by a plain (unencrypted) SQLite file with the same schema and a
    /// session row, as a tool without the key would write it.
    static func plainSQLiteWithTheSameSchema() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try FileManager.default.removeItem(atPath: fixture.path)
        let plain = try Connection(path: fixture.path, create: true)
        try plain.execute("PRAGMA page_size = 4096")
        try Migrator().migrate(plain, now: 0)
        try plain.execute(
            """
            INSERT INTO sessions (id, subject, issued_at, last_active_at, created_at, refresh_fingerprint, access_fingerprint)
            VALUES ('00112233445566778899aabbccddeeff', 'intruder', 0, 0, 0, NULL, NULL);
            UPDATE vault_state SET current_session_id = '00112233445566778899aabbccddeeff', generation = 99 WHERE singleton = 1;
            """)
        return fixture
    }

    static func truncatedAtAPageBoundary() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.truncate(to: (fixture.pageCount - 1) * DamageFixture.pageSize)
        return fixture
    }

    static func truncated(to size: Int) async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.truncate(to: size)
        return fixture
    }

    /// A byte in the middle of the audit log's page: no launch reads it, only verify does.
    static func damagedAuditLogPage() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let page = try fixture.rootPage(of: "audit_log")
        try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + 1_000)
        return fixture
    }

    /// A byte in the sessions table's root page: the open reads it.
    static func damagedSessionsPage() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let page = try fixture.rootPage(of: "sessions")
        try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + 1_000)
        return fixture
    }

    // MARK: Damage only a keyed writer can do

    /// The refresh_lease index's root moved onto the sessions index's tree (through
    /// `writable_schema`): every page still authenticates, but the b-trees no longer add up (a
    /// page used twice, a page used by nothing, an index with entries its table lacks), which
    /// only `PRAGMA integrity_check` sees. The launch reads neither.
    static func indexPointingAtAnotherTree() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let connection = try fixture.raw()
        try connection.execute(
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_sessions_1')
                WHERE name = 'sqlite_autoindex_refresh_lease_1';
            PRAGMA writable_schema = OFF;
            """)
        return fixture
    }

    /// A table the migrations created is gone.
    static func stateTableDropped() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute("DROP TABLE vault_state")
        return fixture
    }

    static func migrationChecksumChanged() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute("UPDATE schema_migrations SET checksum = '\(String(repeating: "0", count: 64))' WHERE version = 2")
        return fixture
    }

    /// A migration newer than any shipped, in a history without the format marker every library
    /// that writes a newer schema records: untrusted. (With the marker, see FormatMarkerTests.)
    static func migrationFromTheFuture() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute(
            """
            CREATE TABLE devices (id TEXT PRIMARY KEY NOT NULL);
            INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, 'create_devices', 'abc', 0);
            DROP TABLE vault_format;
            """)
        return fixture
    }

    /// The sealed refresh token copied into the access-token column (fingerprint included, so
    /// only the seal's associated data can tell).
    static func sealMovedToAnotherColumn() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute("UPDATE sessions SET access_token = refresh_token, access_fingerprint = refresh_fingerprint")
        return fixture
    }

    /// The whole current row copied under another id and made current: its seals were made for
    /// the original id.
    static func sealMovedToAnotherRow() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let other = "ffeeddccbbaa99887766554433221100"
        let columns = SessionRecord.Column.allCases.map(\.rawValue)
        let copied = columns.map { $0 == "id" ? "'\(other)'" : $0 }.joined(separator: ", ")
        try fixture.raw().execute(
            """
            INSERT INTO sessions (\(columns.joined(separator: ", "))) SELECT \(copied) FROM sessions;
            UPDATE vault_state SET current_session_id = '\(other)';
            """)
        return fixture
    }

    /// A second, non-current session row whose seal was moved: the open never reads it.
    static func sealMovedInAnOldRow() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let other = "0f0e0d0c0b0a09080706050403020100"
        let columns = SessionRecord.Column.allCases.map(\.rawValue)
        let copied = columns.map { $0 == "id" ? "'\(other)'" : $0 }.joined(separator: ", ")
        try fixture.raw().execute("INSERT INTO sessions (\(columns.joined(separator: ", "))) SELECT \(copied) FROM sessions")
        return fixture
    }

    static func refreshExpiryBeforeIssue() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute("UPDATE sessions SET refresh_expires_at = issued_at - 1000")
        return fixture
    }

    static func currentSessionPointingNowhere() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        try fixture.raw().execute("UPDATE vault_state SET current_session_id = 'nowhere'")
        return fixture
    }

    // MARK: History

    /// A copy of the database taken earlier is put back after two more rotations (the header,
    /// kept with the key, saw them).
    static func olderCopyRestored() async throws -> DamageFixture {
        let fixture = try await DamageFixture.make()
        let older = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        let vault = try fixture.open()
        try await vault.rotate(TokenValues.response(50, withIdentity: false))
        try await vault.rotate(TokenValues.response(51, withIdentity: false))
        await vault.close()
        try await fixture.capture()
        try older.write(to: URL(fileURLWithPath: fixture.path))
        return fixture
    }

    /// Database, log, header and key copied while the vault is open with commits only in its
    /// log: the files a process killed mid-run leaves behind (intact).
    static func leftByAKilledProcess() async throws -> DamageFixture {
        let original = try await DamageFixture.make()
        let vault = try original.open()
        for sequence in 60..<64 { try await vault.rotate(TokenValues.response(sequence, withIdentity: false)) }
        let copy = try original.copy()
        await vault.close()
        return copy
    }

    /// Database, log and header copied while the vault is open with commits only in its log
    /// (the state a crash leaves), then one byte of the copied log flipped.
    static func damagedWriteAheadLog(offsetFromEnd: Int? = nil, offset: Int? = nil) async throws -> DamageFixture {
        let copy = try await leftByAKilledProcess()
        let walSize = copy.size(of: copy.files.wal)
        guard walSize > Int(CorruptionDiagnosis.walHeaderSize) else { throw DamageFixture.DamageError.outOfRange(walSize) }
        try copy.flipByte(at: offset ?? (walSize - (offsetFromEnd ?? 200)), in: copy.files.wal)
        return copy
    }
}
