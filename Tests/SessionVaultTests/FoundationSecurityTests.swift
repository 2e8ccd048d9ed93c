import CSQLCipher
import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("Foundation: encryption, keys, migrations and redaction")
struct FoundationSecurityTests {
    @Test func aPlainSQLiteShellCannotReadTheVault() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let result = try await Shell.run("/usr/bin/sqlite3", [fixture.path, "SELECT count(*) FROM sessions;"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not a database") || result.stderr.contains("encrypted"))
    }

    @Test func thePlainSQLiteCAPIWithoutAKeyCannotReadTheVault() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        // SQLCipher's own library without a key behaves exactly like plain SQLite.
        let connection = try Connection(path: fixture.path, create: false)
        let error = #expect(throws: SQLiteError.self) { try connection.scalarInt("SELECT count(*) FROM sqlite_master") }
        #expect(error?.code == .notADatabase)
    }

    @Test func aDifferentKeyIsAWrongKeyNotDamage() async throws {
        let fixture = TestVault()
        try await fixture.open().store(Fixtures.goTrue())
        let other = TemporaryDirectory()
        let otherKey = try KeyFileProvider.create(at: other.file("other.key"))
        do {
            _ = try Vault.open(at: fixture.path, keyProvider: otherKey, create: false)
            Issue.record("a wrong key opened the vault")
        } catch {
            guard case .corrupted(let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.kind == .wrongKey)
        }
        // The file itself is intact: the right key still opens it.
        #expect(try await fixture.open().currentSession() != nil)
    }

    @Test func migrationsAreRecordedWithChecksums() throws {
        let directory = TemporaryDirectory()
        let connection = try keyedConnection(directory.file("m.db"))
        let applied = try Migrator().migrate(connection, now: 1)
        #expect(applied == EmbeddedMigrations.all.map(\.version))
        let rows = try Migrator().applied(in: connection)
        #expect(rows.map(\.checksum) == EmbeddedMigrations.all.map(\.checksum))
        #expect(rows.allSatisfy { $0.checksum.count == 64 })
        // Applying again changes nothing.
        #expect(try Migrator().migrate(connection, now: 2).isEmpty)
    }

    @Test func aTamperedMigrationChecksumIsRefused() throws {
        let directory = TemporaryDirectory()
        let connection = try keyedConnection(directory.file("m.db"))
        try Migrator().migrate(connection, now: 1)
        try connection.execute("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 2")
        #expect(throws: MigrationError.checksumMismatch(version: 2, name: "create_vault_state")) {
            try Migrator().migrate(connection, now: 2)
        }
    }

    @Test func aFutureSchemaIsRefused() throws {
        let directory = TemporaryDirectory()
        let connection = try keyedConnection(directory.file("m.db"))
        try Migrator().migrate(connection, now: 1)
        try connection.execute("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (99, 'from_the_future', 'x', 1)")
        let newest = EmbeddedMigrations.all.last?.version ?? 0
        // The format marker allows it (an additive migration): read, nothing applied.
        #expect(try Migrator().migrate(connection, now: 2).isEmpty)
        // The marker asks for a newer library: incompatible, its own error.
        try connection.execute("UPDATE vault_format SET readable_since = 99")
        #expect(throws: MigrationError.newerFormat(readableSince: 99, newestKnown: newest)) {
            try Migrator().migrate(connection, now: 2)
        }
        // No marker at all: the history cannot be trusted.
        try connection.execute("DROP TABLE vault_format")
        #expect(throws: MigrationError.futureSchema(version: 99, newestKnown: newest)) {
            try Migrator().migrate(connection, now: 2)
        }
    }

    @Test func theEmbeddedMigrationsAreExactlyTheFiles() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(names.count == EmbeddedMigrations.files.count)
        #expect(names.count == EmbeddedMigrations.all.count, "every file is named NNNN_name.sql")
        for (name, embedded) in zip(names, EmbeddedMigrations.files.sorted { $0.fileName < $1.fileName }) {
            #expect(embedded.fileName == name)
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(embedded.bytes == bytes, "embedded copy of \(name) differs from the file")
        }
    }

    @Test func keyFilesAreCreatedPrivateAndNeverOverwritten() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("k.key")
        try KeyFileProvider.create(at: path)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(FileManager.default.contents(atPath: path)?.count == KeyFileProvider.fileSize)
        #expect(throws: KeyProviderError.self) { try KeyFileProvider.create(at: path) }
    }

    @Test func openKeyFilePermissionsAndSymlinksAreRefused() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("k.key")
        try KeyFileProvider.create(at: path)
        chmod(path, 0o644)
        #expect(throws: KeyProviderError.self) { _ = try KeyFileProvider(path: path).rootKey(recorded: nil, create: false) }
        do {
            _ = try KeyFileProvider(path: path).rootKey(recorded: nil, create: false)
        } catch {
            guard case .insecure = error else { Issue.record("expected insecure, got \(error)"); return }
        }
        chmod(path, 0o600)
        let link = directory.file("link.key")
        symlink(path, link)
        do {
            _ = try KeyFileProvider(path: link).rootKey(recorded: nil, create: false)
            Issue.record("a symlinked key file was accepted")
        } catch {
            guard case .insecure = error else { Issue.record("expected insecure, got \(error)"); return }
        }
    }

    @Test func damagedOrShortKeyFilesAreInvalid() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("k.key")
        try KeyFileProvider.create(at: path)
        var bytes = try #require(FileManager.default.contents(atPath: path))
        bytes[20] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        do {
            _ = try KeyFileProvider(path: path).rootKey(recorded: nil, create: false)
            Issue.record("a damaged key file was accepted")
        } catch {
            guard case .invalid(let detail) = error else { Issue.record("expected invalid, got \(error)"); return }
            #expect(detail.contains("checksum"))
        }
        try Data(bytes.prefix(40)).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        do {
            _ = try KeyFileProvider(path: path).rootKey(recorded: nil, create: false)
            Issue.record("a short key file was accepted")
        } catch {
            guard case .invalid(let detail) = error else { Issue.record("expected invalid, got \(error)"); return }
            #expect(detail.contains("40 bytes"))
        }
    }

    @Test func aMissingKeyDirectoryIsUnavailableNotMissing() throws {
        let provider = KeyFileProvider(path: "/nonexistent-volume-\(UUID().uuidString)/vault.key")
        do {
            _ = try provider.rootKey(recorded: nil, create: false)
            Issue.record("no error")
        } catch {
            guard case .unavailable = error else { Issue.record("expected unavailable, got \(error)"); return }
        }
    }

    @Test func theCipherGuardRefusesAnEngineThatDoesNotAnswer() async throws {
        let directory = TemporaryDirectory()
        let connection = try keyedConnection(directory.file("g.db"))
        // This build is SQLCipher: the real guard passes.
        let version = try #require(try connection.cipherVersion())
        #expect(version.hasPrefix("3.") || version.hasPrefix("4."))
        // A plain SQLite answers an unknown PRAGMA with nothing at all, which is what the guard
        // treats as "not SQLCipher": shown on the real engine with a PRAGMA no build knows.
        #expect(try connection.scalarText("PRAGMA sessionvault_no_such_pragma") == nil)
        // And the system's plain sqlite3 shell answers cipher_version with nothing.
        let plain = try await Shell.run("/usr/bin/sqlite3", [":memory:", "PRAGMA cipher_version;"])
        #expect(plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func secretBytesAreZeroedAndRedacted() throws {
        var source: [UInt8] = Array("super-secret-value".utf8)
        let secret = try SecretBytes(consuming: &source)
        #expect(source.isEmpty, "the source copy is cleared")
        #expect(secret.count == 18)
        #expect(!secret.description.contains("super"))
        #expect(String(reflecting: secret) == secret.description)
        secret.zero()
        #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        let bytes: [UInt8] = [1, 2, 3]
        let a = try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
        let b = try bytes.withUnsafeBytes { try SecretBytes(copying: $0) }
        let c = try [UInt8]([1, 2, 4]).withUnsafeBytes { try SecretBytes(copying: $0) }
        #expect(a == b)
        #expect(a != c)
    }

    @Test func aReleasedSecretLeavesOnlyZeroesBehind() throws {
        // Arena slots stay mapped after release, so the memory a secret used can be read back.
        // 3000 bytes: the largest slot class, which no other test uses, so no parallel test
        // takes the slot over before it is read.
        var address: UnsafeRawPointer?
        do {
            var bytes = [UInt8](repeating: 0xA5, count: 3000)
            let secret = try SecretBytes(consuming: &bytes)
            address = secret.withUnsafeBytes { $0.baseAddress }
            #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == 0xA5 } })
        }
        let slot = try #require(address)
        // Reading a released slot is what this test is for: under AddressSanitizer the arena
        // has poisoned it, so it is unpoisoned for the read and poisoned again after.
        ArenaPoisoning.unpoison(slot, count: 3000)
        defer { ArenaPoisoning.poison(slot, count: 3000) }
        #expect(UnsafeRawBufferPointer(start: slot, count: 3000).allSatisfy { $0 == 0 }, "the slot was not zeroed on release")
    }

    @Test func underAddressSanitizerAFreeSlotAndTheBytesPastASecretArePoisoned() throws {
        // The arena's slots are invisible to AddressSanitizer unless it poisons them itself
        // (ArenaPoisoning): a read past a secret's end or after its release must be reported.
        // Without the sanitizer (make test) there is nothing to see; make check-asan runs it.
        guard ArenaPoisoning.isActive, let isPoisoned = Self.addressIsPoisoned else { return }
        // An arena of its own: no other test can take its slots between the checks.
        let arena = LockedArena()
        let (pointer, slotSize) = try #require(arena.allocate(2500))
        #expect(slotSize == 4096)
        #expect(isPoisoned(pointer) == 0 && isPoisoned(pointer + 2499) == 0, "the secret's own bytes are usable")
        #expect(isPoisoned(pointer + 2500) == 1 && isPoisoned(pointer + 4095) == 1, "the slot past the secret is poisoned")
        arena.release(pointer, slotSize: slotSize)
        #expect(isPoisoned(pointer) == 1 && isPoisoned(pointer + 2499) == 1, "the released slot is poisoned")
    }

    /// The sanitizer runtime's `__asan_address_is_poisoned`, or nil without it.
    private static let addressIsPoisoned: (@convention(c) (UnsafeRawPointer?) -> Int32)? = {
        guard let symbol = dlsym(nil, "__asan_address_is_poisoned") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeRawPointer?) -> Int32).self)
    }()

    @Test func descriptionsNeverContainATokenOrKey() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let response = try Fixtures.goTrue()
        let session = try await vault.store(response)
        let refresh = try #require(try await vault.refreshToken())
        var texts = [
            String(describing: response), String(reflecting: response), String(describing: session),
            String(describing: refresh), String(reflecting: refresh), "\(try await vault.snapshot())"
        ]
        var dumped = ""
        dump(response, to: &dumped)
        dump(refresh, to: &dumped)
        texts.append(dumped)
        let errors: [any Error] = [
            VaultError.staleSession, VaultError.invalidTokenResponse(.missingField("refresh_token")),
            RefreshError.invalidGrant, KeyProviderError.invalid("x")
        ]
        texts += errors.map { "\($0)" }
        for text in texts {
            #expect(!text.contains(Fixtures.refreshMarker), "a refresh token leaked into a description")
            #expect(!text.contains(Fixtures.accessMarker), "an access token leaked into a description")
        }
        #expect(String(describing: refresh) == "Token(fp:\(session.refreshTokenFingerprint?.hex ?? ""))")
    }

    @Test func sealedTokensAreBoundToTheirRowColumnAndVersion() throws {
        let root = try SecretBytes.random(count: 32)
        let keys = try VaultKeys(root: root)
        var plain: [UInt8] = Array("token".utf8)
        let token = try SecretBytes(consuming: &plain)
        let ad = TokenColumn.refreshToken.associatedData(sessionID: "a", tokenVersion: 1)
        let sealed = FieldCipher.seal(token, key: keys.fieldKey, associatedData: ad)
        #expect(try FieldCipher.open(sealed, key: keys.fieldKey, associatedData: ad) == token)
        for other in [
            TokenColumn.refreshToken.associatedData(sessionID: "b", tokenVersion: 1),
            TokenColumn.accessToken.associatedData(sessionID: "a", tokenVersion: 1),
            TokenColumn.refreshToken.associatedData(sessionID: "a", tokenVersion: 2)
        ] {
            #expect(throws: CryptoError.authenticationFailed) { try FieldCipher.open(sealed, key: keys.fieldKey, associatedData: other) }
        }
    }

    /// A connection keyed like a vault's, for Storage-level tests.
    private func keyedConnection(_ path: String) throws -> Connection {
        let keys = try VaultKeys(root: SecretBytes.random(count: 32))
        let connection = try Connection(path: path, create: true)
        try keys.databaseRawKey.withUnsafeBytes { try connection.key($0) }
        try connection.pinCipherSettings(pageSize: 4096, kdfIterations: 64_000)
        return connection
    }
}
