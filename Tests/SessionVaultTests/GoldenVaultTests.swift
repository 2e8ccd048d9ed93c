import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Vaults written by released versions (Tests/GoldenVaults/<version>/, made once with
/// scripts/make-golden-vaults.sh and never rewritten) open in every later version with their
/// sessions intact. Peers lost their users' sessions on SDK upgrades; this is the guard.
@Suite("Golden vaults of released versions open with their sessions intact")
struct GoldenVaultTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GoldenVaults").path

    /// A copy of one golden vault in a temporary directory (opening writes: the header's
    /// generation, the log), with the key file's mode restored to 0600 (git keeps only 644/755).
    static func copy(_ version: String, _ name: String) throws -> (directory: TemporaryDirectory, path: String, keys: KeyFileProvider) {
        let source = "\(root)/\(version)/\(name)"
        let directory = TemporaryDirectory()
        for file in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: "\(source)/\(file)", toPath: directory.file(file))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: directory.file("vault.key"))
        return (directory, directory.file("vault.db"), KeyFileProvider(path: directory.file("vault.key")))
    }

    @Test("every released version has its golden vaults committed")
    func goldenVaultsArePresent() throws {
        let versions = try FileManager.default.contentsOfDirectory(atPath: Self.root)
        #expect(versions.contains("0.1.0"))
        for version in versions {
            let names = Set(try FileManager.default.contentsOfDirectory(atPath: "\(Self.root)/\(version)"))
            #expect(names.isSuperset(of: ["signed-in-biometric", "signed-out", "after-recovery-wipe"]), "\(version): \(names)")
        }
    }

    @Test("0.1.0, signed in with biometric unlock: the session, its tokens and the biometric setting", arguments: ["0.1.0"])
    func signedInWithBiometricUnlock(_ version: String) async throws {
        let golden = try Self.copy(version, "signed-in-biometric")
        let vault = try Vault.open(at: golden.path, keyProvider: golden.keys, create: false)
        let session = try #require(try await vault.currentSession())
        #expect(session.identity.subject == "user-123")
        #expect(session.identity.tenant == "tenant-9")
        #expect(session.identity.email == "mentor@example.org")
        #expect(session.biometricEnabled)
        let refresh = try #require(try await vault.refreshToken())
        let access = try #require(try await vault.accessToken())
        #expect(refresh.hasSameValue(as: try Token("v1.GOLDENREFRESHTOKEN-1")))
        #expect(access.withRevealedBytes { String(decoding: $0, as: UTF8.self) }.hasSuffix(".GOLDENACCESSTOKEN"))
        #expect(session.issuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try await vault.verify().intact)
        // And it takes writes in this version.
        try await vault.rotate(TokenResponse(accessToken: try Token("next-access"), expiresIn: 3600, refreshToken: try Token("v1.next-refresh"), identity: nil))
        #expect(try await vault.refreshToken()?.hasSameValue(as: try Token("v1.next-refresh")) == true)
        await vault.close()
        // 0.1.0 wrote no header tag and no state seal: the first open signed and sealed it, and
        // the record beside the key follows the generation.
        let keys = try VaultKeys(root: golden.keys.rootKey(recorded: .stored, create: false).bytes)
        let header = try #require(try HeaderFile.read(at: golden.path + "-header"))
        #expect(header.authenticity(with: keys) == .authentic)
        let record = try #require(try golden.keys.generationRecord())
        #expect(GenerationWitness.decode(record, keys: keys)?.generation == header.generation)
        let reopened = try Vault.open(at: golden.path, keyProvider: golden.keys, create: false)
        #expect(try await reopened.refreshToken()?.hasSameValue(as: try Token("v1.next-refresh")) == true)
        await reopened.close()
    }

    @Test("0.1.0, signed out: no session, and the reason is signedOut", arguments: ["0.1.0"])
    func signedOut(_ version: String) async throws {
        let golden = try Self.copy(version, "signed-out")
        let vault = try Vault.open(at: golden.path, keyProvider: golden.keys, create: false)
        #expect(try await vault.currentSession() == nil)
        #expect(try await vault.snapshot() == .empty(.signedOut))
        #expect(try await vault.verify().intact)
        await vault.close()
    }

    @Test("0.1.0, after a recovery wipe: an empty vault that says why, beside its tombstone", arguments: ["0.1.0"])
    func afterRecoveryWipe(_ version: String) async throws {
        let golden = try Self.copy(version, "after-recovery-wipe")
        let tombstone = try #require(Vault.tombstone(at: golden.path))
        #expect(tombstone.reason == .notADatabase)
        #expect(tombstone.version == version)
        let vault = try Vault.open(at: golden.path, keyProvider: golden.keys, create: false)
        #expect(try await vault.currentSession() == nil)
        #expect(try await vault.snapshot() == .empty(.wipedAfterCorruption(.notADatabase)))
        #expect(try await vault.verify().intact)
        await vault.close()
    }

    /// The sealing migration (6) needs the state row it seals: a vault of an older schema that
    /// lost it is damage, and the migration is rolled back, so the file is left at its own schema
    /// (an older library can still read it, and the evidence is as it was).
    @Test("0.1.0 without its state row: the sealing migration rolls back and the open reports damage", arguments: ["0.1.0"])
    func aLostStateRowStopsTheSealingMigration(_ version: String) throws {
        let golden = try Self.copy(version, "signed-in-biometric")
        let keys = try VaultKeys(root: golden.keys.rootKey(recorded: .stored, create: false).bytes)
        let before: Int64?
        do {
            let raw = try Connection.keyed(golden.path, keys: keys)
            before = try raw.scalarInt("SELECT max(version) FROM schema_migrations")
            try raw.execute("DELETE FROM vault_state")
            _ = raw.close()
        }
        #expect(before.map { $0 < StateSeal.migrationVersion } == true, "the golden vault predates the seal")
        do {
            _ = try Vault.open(at: golden.path, keyProvider: golden.keys, create: false)
            Issue.record("a vault without its state row opened")
        } catch {
            guard case .corrupted(let reason) = error else { Issue.record("expected corrupted, got \(error)"); return }
            #expect(reason.kind == .invariantViolation, "\(reason)")
            #expect(reason.detail.contains("vault_state row is missing"), "\(reason)")
        }
        let after = try Connection.keyed(golden.path, keys: keys, readOnly: true)
        #expect(try after.scalarInt("SELECT max(version) FROM schema_migrations") == before, "the migration was rolled back")
    }
}
