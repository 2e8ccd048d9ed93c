import Foundation
import SessionVault
import SessionVaultTesting

/// A vault on disk prepared for one group of benchmarks, with its two baseline copies:
///
/// - `vault.db`: the SessionVault file, `sessions` rows in total (1 current + extras) and the
///   audit log at its cap (filled by real `rotate` calls).
/// - `plain.db`: the same schema and rows, decrypted with `sqlcipher_export` into an unkeyed
///   database of the same SQLCipher library (plain SQLite: 3.15.2 under 3.4.1, 3.46 under 4.6.1).
/// - `naive.db`: the same again, encrypted with `sqlcipher_export` under a passphrase with
///   SQLCipher's defaults (PBKDF2-HMAC-SHA1, 64,000 iterations, 1024-byte pages).
/// - `rawkey.db`: a byte copy of `vault.db`, opened by the baseline code with the vault's raw
///   key: SQLCipher's own cost (the engine floor) without any SessionVault code.
package struct VaultFixture: Sendable {
    package let directory: String
    package let keys: BenchKeys
    package let sessions: Int

    package var vaultPath: String { directory + "/vault.db" }
    package var plainPath: String { directory + "/plain.db" }
    package var naivePath: String { directory + "/naive.db" }
    /// A byte copy of the vault file, for the engine-floor baselines (SQLCipher keyed with the
    /// vault's raw key, driven by the baseline code instead of the vault).
    package var rawKeyPath: String { directory + "/rawkey.db" }

    /// The naive baseline's passphrase (benchmark data, not a secret of anyone's).
    package static let naivePassphrase = Array("correct horse battery staple".utf8)

    /// A key provider holding this fixture's root key: no keystore cost on the measured path.
    package func keyProvider() throws -> InMemoryKeyProvider {
        try keys.root.withUnsafeBytes { try InMemoryKeyProvider(key: SecretBytes(copying: $0)) }
    }

    package func open(clock: @escaping @Sendable () -> Date = { Date() }) throws -> Vault {
        try Vault.open(at: vaultPath, keyProvider: keyProvider(), clock: clock, create: false)
    }

    /// A raw connection to the vault file, keyed with its database key the way the library keys it.
    /// - Parameter create: lets ATTACH create a new file (SQLite gives attached files the main
    ///   connection's open flags).
    package func rawVaultConnection(create: Bool = false) throws -> RawDatabase {
        let database = try RawDatabase(path: vaultPath, create: create)
        try database.key(keys.databaseRawKey)
        try database.pinVaultCipherSettings()
        return database
    }

    /// Builds the fixture in `directory` (emptied first).
    package static func make(in directory: String, sessions: Int, auditRows: Int = ResumePolicy().auditLogCapacity) async throws -> VaultFixture {
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let fixture = VaultFixture(directory: directory, keys: .random(), sessions: sessions)

        // 1. The current session through the public API.
        let vault = try Vault.open(at: fixture.vaultPath, keyProvider: fixture.keyProvider(), create: true)
        try await vault.store(TokenFactory.signIn(expiresIn: 3600))
        await vault.close()

        // 2. Extra sessions: rows copied from the current one with new ids, their tokens sealed
        //    for their own row, so they are as valid as rows the library wrote.
        if sessions > 1 { try fixture.insertExtraSessions(sessions - 1) }

        // 3. The audit log at its cap, through real rotations.
        let reopened = try fixture.open()
        for index in 0..<auditRows { try await reopened.rotate(TokenFactory.refreshed(index)) }
        await reopened.close()

        try fixture.exportBaselines()
        return fixture
    }

    private func insertExtraSessions(_ count: Int) throws {
        let database = try rawVaultConnection()
        let current = try database.prepare(
            """
            SELECT id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, token_type, scope,
                access_expires_at, server_expires_at, refresh_expires_at, issued_at, absolute_deadline, last_active_at, created_at
            FROM sessions WHERE id = (SELECT current_session_id FROM vault_state WHERE singleton = 1)
            """)
        guard try current.step() else { throw RawDatabaseError(code: 0, message: "the fixture has no current session") }
        let insert = try database.prepare(
            """
            INSERT INTO sessions (id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, token_type, scope,
                refresh_token, access_token, refresh_fingerprint, access_fingerprint, access_expires_at, server_expires_at,
                refresh_expires_at, issued_at, absolute_deadline, last_active_at, biometric_enabled, token_version, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 1, ?)
            """)
        try database.execute("BEGIN IMMEDIATE")
        for index in 0..<count {
            var idBytes = [UInt8](repeating: 0, count: 16)
            for offset in 0..<16 { idBytes[offset] = UInt8.random(in: 0...255) }
            let id = idBytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
            let refresh = Array("v1.extra-refresh-\(index)-\(id)".utf8)
            let access = Array(TokenFactory.accessJWT(marker: "extra-\(index)").utf8)
            insert.reset()
            insert.bind(1, id)
            for column in Int32(1)...9 {
                if let text = current.text(column) { insert.bind(column + 1, text) } else { insert.bindNull(column + 1) }
            }
            insert.bind(11, keys.seal(refresh, sessionID: id, column: "refresh_token", tokenVersion: 1))
            insert.bind(12, keys.seal(access, sessionID: id, column: "access_token", tokenVersion: 1))
            insert.bind(13, keys.fingerprint(refresh))
            insert.bind(14, keys.fingerprint(access))
            for (offset, column) in (Int32(10)...15).enumerated() {
                if let value = current.optionalInt64(column) { insert.bind(15 + Int32(offset), value) } else { insert.bindNull(15 + Int32(offset)) }
            }
            insert.bind(21, current.int64(16))
            try insert.run()
        }
        try database.execute("COMMIT")
    }

    /// plain.db and naive.db from the vault file (the vault is closed, its WAL checkpointed).
    private func exportBaselines() throws {
        for path in [plainPath, naivePath, rawKeyPath] {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let database = try rawVaultConnection(create: true)
            try database.execute("ATTACH DATABASE '\(plainPath)' AS plain KEY ''")
            _ = try database.scalarText("SELECT sqlcipher_export('plain')")
            try database.execute("DETACH DATABASE plain")
        }
        do {
            // The main database is unkeyed, so the attached one gets SQLCipher's defaults.
            let database = try RawDatabase(path: plainPath, create: true)
            let passphrase = String(decoding: Self.naivePassphrase, as: UTF8.self)
            try database.execute("ATTACH DATABASE '\(naivePath)' AS naive KEY '\(passphrase)'")
            _ = try database.scalarText("SELECT sqlcipher_export('naive')")
            try database.execute("DETACH DATABASE naive")
        }
        try FileManager.default.copyItem(atPath: vaultPath, toPath: rawKeyPath)
        // Same journal mode as the vault from the start (it is persistent in the file).
        for (path, key) in [(plainPath, nil), (naivePath, Self.naivePassphrase)] as [(String, [UInt8]?)] {
            let database = try RawDatabase(path: path)
            if let key { try database.key(key) }
            _ = try database.scalarText("PRAGMA journal_mode = WAL")
            guard try database.scalarInt("SELECT count(*) FROM sessions") == Int64(sessions) else {
                throw RawDatabaseError(code: 0, message: "export of \(path) lost rows")
            }
        }
    }

    /// Bytes of the vault's database and its sidecars.
    package func vaultBytes() -> Int64 {
        var total: Int64 = 0
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: vaultPath + suffix))?[.size] as? NSNumber {
                total += size.int64Value
            }
        }
        return total
    }
}

/// Token responses shaped like Supabase GoTrue's, with distinct token values.
package enum TokenFactory {
    /// A JWT-shaped access token (header and payload are real base64url JSON; the signature is a marker).
    package static func accessJWT(marker: String) -> String {
        // {"alg":"HS256"} . {"sub":"user-123","iss":"https://project.supabase.co/auth/v1"}
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImlzcyI6Imh0dHBzOi8vcHJvamVjdC5zdXBhYmFzZS5jby9hdXRoL3YxIn0.sig-\(marker)"
    }

    /// A sign-in (password grant) response body.
    package static func signInJSON(expiresIn: Int, marker: String = UUID().uuidString) -> Data {
        Data(
            """
            {"access_token":"\(accessJWT(marker: marker))","token_type":"bearer","expires_in":\(expiresIn),
             "refresh_token":"v1.refresh-\(marker)",
             "user":{"id":"user-123","email":"mentor@example.org","role":"authenticated",
                     "app_metadata":{"provider":"email","roles":["peer_mentor"],"tenant_id":"tenant-9"},
                     "user_metadata":{"full_name":"Kari Nordmann"}}}
            """.utf8)
    }

    package static func signIn(expiresIn: Int) throws -> TokenResponse {
        try TokenResponse(json: signInJSON(expiresIn: expiresIn))
    }

    /// A refresh result: new access and refresh tokens, no user object (as GoTrue's refresh may omit it).
    package static func refreshed(_ index: Int) throws -> TokenResponse {
        TokenResponse(
            accessToken: try Token("opaque-access-\(index)-\(UUID().uuidString)"), expiresIn: 3600,
            refreshToken: try Token("v1.refresh-\(index)-\(UUID().uuidString)"), identity: nil)
    }
}
