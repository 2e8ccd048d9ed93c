import CSQLCipherBench
import Foundation
import SessionVault

/// The launch an app without SessionVault would do on the same schema, through the same SQLCipher
/// library: open, (naive only: `sqlite3_key` with a passphrase, so PBKDF2 runs), the same
/// connection pragmas, the same migration-history check, the current-session read with every
/// column decoded, the decision, close. What it leaves out is exactly what the vault adds: the
/// header and key check, key derivation, the raw key, the cipher guard, opening the sealed
/// tokens and checking their fingerprints, the data_version checks.
package struct PlainLaunch: Sendable {
    package let path: String
    /// nil: unencrypted. Otherwise the bytes given to `sqlite3_key`: a passphrase (naive), or
    /// the vault's raw key `x'…'` (the engine floor: SQLCipher as the vault keys it, no vault code).
    package let passphrase: [UInt8]?
    /// The page size to pin after keying (the raw-key variant, like the vault); nil: the default.
    package let cipherPageSize: Int?
    /// version -> checksum, as the migrations the app ships would list them.
    package let migrationChecksums: [Int64: String]
    /// A snapshot of the same session, so the baseline pays the same pure decision.
    package let snapshot: VaultSnapshot

    package static let sessionColumns = """
        id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, active_subject, token_type, scope, \
        refresh_token, access_token, refresh_fingerprint, access_fingerprint, access_expires_at, server_expires_at, \
        refresh_expires_at, issued_at, absolute_deadline, last_active_at, biometric_enabled, token_version, \
        refresh_pending_since, biometric_domain_state
        """

    /// Reads what the baseline needs from the fixture (outside any measurement).
    /// Which baseline: the unencrypted copy, the passphrase-keyed copy, or a raw-keyed copy of the vault file.
    package enum Variant: Sendable {
        case unencrypted, naive, rawKey
    }

    package static func make(fixture: VaultFixture, variant: Variant) async throws -> PlainLaunch {
        let database = try RawDatabase(path: fixture.plainPath)
        let rows = try database.prepare("SELECT version, checksum FROM schema_migrations")
        var checksums: [Int64: String] = [:]
        while try rows.step() { checksums[rows.int64(0)] = rows.text(1) }
        let vault = try fixture.open()
        let snapshot = try await vault.snapshot()
        await vault.close()
        switch variant {
        case .unencrypted:
            return PlainLaunch(path: fixture.plainPath, passphrase: nil, cipherPageSize: nil, migrationChecksums: checksums, snapshot: snapshot)
        case .naive:
            return PlainLaunch(
                path: fixture.naivePath, passphrase: VaultFixture.naivePassphrase, cipherPageSize: nil,
                migrationChecksums: checksums, snapshot: snapshot)
        case .rawKey:
            return PlainLaunch(
                path: fixture.rawKeyPath, passphrase: fixture.keys.databaseRawKey, cipherPageSize: 4096,
                migrationChecksums: checksums, snapshot: snapshot)
        }
    }

    /// One cold launch. Returns the decision so the work cannot be optimized away.
    package func run(now: Date, policy: ResumePolicy) throws -> ResumePath {
        let database = try RawDatabase(path: path)
        if let passphrase { try database.key(passphrase) }
        // A raw-keyed copy of the vault: the vault's own pinned settings (see pinVaultCipherSettings).
        if cipherPageSize != nil { try database.pinVaultCipherSettings() }
        _ = try database.scalarInt("SELECT count(*) FROM sqlite_master")
        sqlite3_busy_timeout(database.handle, 2_000)
        try database.execute(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA temp_store = MEMORY;
            PRAGMA secure_delete = ON;
            PRAGMA journal_size_limit = 1048576;
            """)
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version INTEGER PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                checksum TEXT NOT NULL,
                applied_at INTEGER NOT NULL)
            """)
        let history = try database.prepare("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
        while try history.step() {
            guard let checksum = history.text(2), migrationChecksums[history.int64(0)] == checksum, history.text(1) != nil else {
                throw RawDatabaseError(code: 0, message: "migration history does not match")
            }
        }
        let state = try database.prepare(
            """
            SELECT current_session_id, generation, last_wall_clock, empty_reason, server_clock_offset, biometric_preference
            FROM vault_state WHERE singleton = 1
            """)
        guard try state.step(), let currentID = state.text(0) else { throw RawDatabaseError(code: 0, message: "no current session") }
        let generation = state.int64(1)
        let lastWallClock = Date(timeIntervalSince1970: Double(state.int64(2)) / 1000)
        let row = try database.prepare("SELECT \(Self.sessionColumns) FROM sessions WHERE id = ?")
        row.bind(1, currentID)
        guard try row.step() else { throw RawDatabaseError(code: 0, message: "the current session row is missing") }
        let decoded = PlainSessionRow(row)
        guard decoded.roles != nil, generation > 0 else { throw RawDatabaseError(code: 0, message: "unreadable session row") }
        blackHoleValue(decoded)
        blackHoleValue(lastWallClock)
        return ResumeDecision.decide(snapshot, now: now, policy: policy)
    }
}

/// Every column of a session row decoded into Swift values, as an app's model layer would.
package struct PlainSessionRow {
    package let id: String?
    package let issuer: String?
    package let subject: String?
    package let tenant: String?
    package let email: String?
    package let displayName: String?
    package let roles: [String]?
    package let metadataJSON: String?
    package let activeSubject: String?
    package let tokenType: String?
    package let scope: String?
    package let refreshToken: [UInt8]?
    package let accessToken: [UInt8]?
    package let refreshFingerprint: String?
    package let accessFingerprint: String?
    package let accessExpiresAt: Date?
    package let serverExpiresAt: Date?
    package let refreshExpiresAt: Date?
    package let issuedAt: Date
    package let absoluteDeadline: Date?
    package let lastActiveAt: Date
    package let biometricEnabled: Bool
    package let tokenVersion: Int64
    package let refreshPendingSince: Date?
    package let biometricDomainState: [UInt8]?

    package init(_ row: RawStatement) {
        func date(_ column: Int32) -> Date? { row.optionalInt64(column).map { Date(timeIntervalSince1970: Double($0) / 1000) } }
        id = row.text(0)
        issuer = row.text(1)
        subject = row.text(2)
        tenant = row.text(3)
        email = row.text(4)
        displayName = row.text(5)
        roles = row.text(6).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        metadataJSON = row.text(7)
        activeSubject = row.text(8)
        tokenType = row.text(9)
        scope = row.text(10)
        refreshToken = row.blob(11)
        accessToken = row.blob(12)
        refreshFingerprint = row.text(13)
        accessFingerprint = row.text(14)
        accessExpiresAt = date(15)
        serverExpiresAt = date(16)
        refreshExpiresAt = date(17)
        issuedAt = date(18) ?? Date(timeIntervalSince1970: 0)
        absoluteDeadline = date(19)
        lastActiveAt = date(20) ?? Date(timeIntervalSince1970: 0)
        biometricEnabled = row.int64(21) != 0
        tokenVersion = row.int64(22)
        refreshPendingSince = date(23)
        biometricDomainState = row.blob(24)
    }
}

/// The rotate an app without SessionVault would do: the same statements in one immediate
/// transaction, WAL, synchronous=FULL, tokens stored as they came (no seal, no fingerprint),
/// no re-read afterwards.
package final class PlainRotator {
    package let database: RawDatabase
    package let sessionID: String
    private var version: Int64
    private let update: RawStatement
    private let deleteLease: RawStatement
    private let insertAudit: RawStatement
    private let capAudit: RawStatement
    private let advance: RawStatement

    /// - Parameter rawKey: key the connection like the vault does (engine-floor variant).
    package init(path: String, rawKey: [UInt8]? = nil) throws {
        database = try RawDatabase(path: path)
        if let rawKey {
            try database.key(rawKey)
            try database.pinVaultCipherSettings()
        }
        sqlite3_busy_timeout(database.handle, 2_000)
        try database.execute(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA temp_store = MEMORY;
            PRAGMA secure_delete = ON;
            PRAGMA journal_size_limit = 1048576;
            """)
        let current = try database.prepare(
            """
            SELECT s.id, s.token_version FROM sessions s JOIN vault_state v ON v.current_session_id = s.id WHERE v.singleton = 1
            """)
        guard try current.step(), let id = current.text(0) else { throw RawDatabaseError(code: 0, message: "no current session") }
        sessionID = id
        version = current.int64(1)
        update = try database.prepare(
            """
            UPDATE sessions SET refresh_token = ?, access_token = ?, refresh_fingerprint = ?, access_fingerprint = ?,
                access_expires_at = ?, server_expires_at = ?, refresh_expires_at = coalesce(?, refresh_expires_at),
                token_type = ?, scope = coalesce(?, scope), token_version = ?, refresh_pending_since = NULL
            WHERE id = ? AND token_version = ?
                AND id = (SELECT current_session_id FROM vault_state WHERE singleton = 1)
            """)
        deleteLease = try database.prepare("DELETE FROM refresh_lease WHERE session_id = ?")
        insertAudit = try database.prepare(
            """
            INSERT OR REPLACE INTO audit_log (slot, seq, at, event, session_id, fingerprint, reason)
            SELECT (audit_seq + 1) % ?, audit_seq + 1, ?, ?, ?, ?, ? FROM vault_state WHERE singleton = 1
            """)
        capAudit = try database.prepare("UPDATE vault_state SET audit_seq = audit_seq + 1 WHERE singleton = 1")
        advance = try database.prepare("UPDATE vault_state SET generation = generation + 1, last_wall_clock = max(last_wall_clock, ?) WHERE singleton = 1")
    }

    /// One durable rotation with these token values.
    package func rotate(refresh: String, access: String, now: Int64) throws {
        try database.execute("BEGIN IMMEDIATE")
        do {
            update.reset()
            update.bind(1, refresh)
            update.bind(2, access)
            update.bind(3, "-")
            update.bind(4, "-")
            update.bind(5, now + 3_600_000)
            update.bindNull(6)
            update.bind(7, now + 30 * 86_400_000)
            update.bind(8, "bearer")
            update.bindNull(9)
            update.bind(10, version + 1)
            update.bind(11, sessionID)
            update.bind(12, version)
            try update.run()
            guard sqlite3_changes(database.handle) == 1 else { throw RawDatabaseError(code: 0, message: "stale session") }
            deleteLease.reset()
            deleteLease.bind(1, sessionID)
            try deleteLease.run()
            insertAudit.reset()
            insertAudit.bind(1, Int64(ResumePolicy().auditLogCapacity))
            insertAudit.bind(2, now)
            insertAudit.bind(3, "rotated")
            insertAudit.bind(4, sessionID)
            insertAudit.bindNull(5)
            insertAudit.bindNull(6)
            try insertAudit.run()
            capAudit.reset()
            try capAudit.run()
            advance.reset()
            advance.bind(1, now)
            try advance.run()
            try database.execute("COMMIT")
            version += 1
        } catch {
            _ = sqlite3_exec(database.handle, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }
}

/// The touch an app without SessionVault would do on every interaction: one single-row UPDATE
/// in autocommit, WAL, synchronous=NORMAL.
package final class PlainToucher {
    package let database: RawDatabase
    private let update: RawStatement
    private let sessionID: String

    package init(path: String) throws {
        database = try RawDatabase(path: path)
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON;")
        guard let id = try database.scalarText("SELECT current_session_id FROM vault_state WHERE singleton = 1") else {
            throw RawDatabaseError(code: 0, message: "no current session")
        }
        sessionID = id
        update = try database.prepare("UPDATE sessions SET last_active_at = ? WHERE id = ?")
    }

    package func touch(now: Int64) throws {
        update.reset()
        update.bind(1, now)
        update.bind(2, sessionID)
        try update.run()
    }
}

/// The physical floor of a durable commit: one 4 KiB write and fdatasync, in the vault's directory.
package final class FsyncFloor {
    private let descriptor: Int32
    private var page = [UInt8](repeating: 0xA5, count: 4096)
    package let path: String

    package init(directory: String) throws {
        path = directory + "/fsync-floor.bin"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw RawDatabaseError(code: errno, message: "open \(path)") }
        try write()
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    package func write() throws {
        page[0] &+= 1
        let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == 4096, fdatasync(descriptor) == 0 else { throw RawDatabaseError(code: errno, message: "pwrite/fdatasync") }
    }
}

/// Keeps a value alive and opaque to the optimizer (the Benchmark module's blackHole, for values
/// this file builds).
@inline(never)
package func blackHoleValue<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
