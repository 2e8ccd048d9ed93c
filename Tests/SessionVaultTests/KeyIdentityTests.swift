import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// A vault names its key: a missing key, or a key file that holds no key, is proof of loss only
/// when it is the key the vault names. Before, a 56-byte zero file at any key path wiped a healthy
/// vault ("a header of ours is there" was taken as proof), a second component whose key file did
/// not exist yet wiped the first's vault, and the torn remains of a wipe's overwrite answered
/// "not a SessionVault key file" for good.
@Suite("A vault names its key", .timeLimit(.minutes(2)))
struct KeyIdentityTests {
    let fixture = TestVault()
    // Computed: the lazily made storage of a stored static is reported by LeakSanitizer.
    static var unreachable: URL { URL(fileURLWithPath: "/") }
    /// How a message names the key a vault made with `vault.key` records, and a provider's key.
    static var vaultKey: String { "\(RecordedKeyIdentity(KeyIdentity(kind: "keyFile", name: "vault.key")))" }
    static func named(_ file: String) -> String { KeyIdentity(kind: "keyFile", name: file).described }

    func manager(_ keys: any KeyProvider, path: String? = nil) -> ResumeManager {
        ResumeManager(
            path: path ?? fixture.path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: Self.unreachable, apiKey: "anon"),
            clock: fixture.clock.function)
    }

    /// A signed-in vault whose process ended without closing it (its log still holds the commits).
    func signedIn() async throws -> Session {
        let vault = try fixture.open()
        let session = try await vault.store(Fixtures.goTrue())
        return session
    }

    /// Every file of the vault's directory, by name, with its bytes.
    func directoryBytes() throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path) {
            result[name] = FileManager.default.contents(atPath: fixture.directory.file(name))
        }
        return result
    }

    static func plantZeros(at path: String, count: Int = 56) throws {
        try Data(repeating: 0, count: count).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    @Test func aZeroFileAtAnotherKeyPathWipesNothing() async throws {
        _ = try await signedIn()
        let other = fixture.directory.file("other.key")
        try Self.plantZeros(at: other)
        let before = try directoryBytes()
        let outcome = await manager(KeyFileProvider(path: other)).resume()
        guard case .unavailable(_, let detail) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(detail.contains(Self.vaultKey) && detail.contains("\"other.key\""), "names both keys: \(detail)")
        #expect(try directoryBytes() == before, "nothing written, nothing deleted")
        guard case .home = await manager(fixture.keys).resume() else { Issue.record("the vault's own key no longer opens it"); return }
    }

    /// The same name in another directory (the key the vault names, as far as a name can tell):
    /// zeros there are proof of nothing without the record a wipe writes before the key.
    @Test func aZeroFileOfTheSameNameElsewhereWipesNothing() async throws {
        _ = try await signedIn()
        let elsewhere = TemporaryDirectory()
        let zeros = elsewhere.file("vault.key")
        try Self.plantZeros(at: zeros)
        let before = try directoryBytes()
        let outcome = await manager(KeyFileProvider(path: zeros)).resume()
        guard case .unavailable = outcome else { Issue.record("got \(outcome)"); return }
        #expect(try directoryBytes() == before)
        #expect(FileManager.default.fileExists(atPath: zeros))
    }

    /// Two components at one vault path (react-native-keychain #771's shape), or an app update
    /// that looks for its key under another name (flutter_secure_storage #1158): the second's
    /// key file does not exist, or is a zero file; neither wipes the first's vault.
    @Test(arguments: [false, true])
    func aSecondComponentWithAnotherKeyNameWipesNothing(zeroFile: Bool) async throws {
        _ = try await signedIn()
        let renamed = fixture.directory.file("renamed.key")
        if zeroFile { try Self.plantZeros(at: renamed) }
        let before = try directoryBytes()
        let outcome = await manager(KeyFileProvider(path: renamed)).resume()
        guard case .unavailable(_, let detail) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(detail.contains(Self.vaultKey) && detail.contains("\"renamed.key\""))
        #expect(try directoryBytes() == before)
        #expect(throws: VaultError.otherKey(vaultKey: Self.vaultKey, providerKey: Self.named("renamed.key"))) {
            _ = try Vault.open(at: fixture.path, keyProvider: KeyFileProvider(path: renamed), clock: fixture.clock.function)
        }
    }

    /// The named key deleted: lost, as before. The vault recovers and says why.
    @Test func theNamedKeyGoneIsLost() async throws {
        _ = try await signedIn()
        try FileManager.default.removeItem(atPath: fixture.keyPath)
        let outcome = await manager(fixture.keys).resume()
        #expect(outcome == .login(reason: .wipedAfterCorruption(.keyMissing), showExpiredMessage: false))
    }

    /// tink-java #23's shape, and iOS containers that move between installs: the vault restored
    /// into a new directory without its key recovers (identities are names, never paths).
    @Test func aVaultRestoredElsewhereWithoutItsKeyRecovers() async throws {
        _ = try await signedIn()
        let vault = try fixture.open()
        await vault.close()
        let restored = TemporaryDirectory()
        for name in ["vault.db", "vault.db-header"] {
            try FileManager.default.copyItem(atPath: fixture.directory.file(name), toPath: restored.file(name))
        }
        let outcome = await manager(KeyFileProvider(path: restored.file("vault.key")), path: restored.file("vault.db")).resume()
        #expect(outcome == .login(reason: .wipedAfterCorruption(.keyMissing), showExpiredMessage: false))
    }

    /// A wipe cut inside the overwrite of the key leaves part zeros, part key bytes: beside that
    /// wipe's tombstone, the remains are finished and the vault recovers; without it, nothing
    /// proves them the vault's destroyed key, and nothing is touched.
    @Test(arguments: [true, false])
    func theTornRemainsOfAWipesOverwrite(tombstone: Bool) async throws {
        _ = try await signedIn()
        let vault = try fixture.open()
        await vault.close()
        var key = try #require(FileManager.default.contents(atPath: fixture.keyPath))
        key.replaceSubrange(0..<24, with: Data(repeating: 0, count: 24))
        try key.write(to: URL(fileURLWithPath: fixture.keyPath))
        chmod(fixture.keyPath, 0o600)
        if tombstone {
            try Tombstone(reason: .notADatabase, detail: "planted: the first wipe's reason", wipedAt: fixture.clock.now).write(to: fixture.files.tombstone)
        }
        let before = try directoryBytes()
        let outcome = await manager(fixture.keys).resume()
        if tombstone {
            #expect(outcome == .login(reason: .wipedAfterCorruption(.notADatabase), showExpiredMessage: false), "\(outcome)")
            #expect(!FileManager.default.fileExists(atPath: fixture.keyPath), "the remains are gone")
            // And the next sign-in works.
            let fresh = try await manager(fixture.keys).vault
            _ = try await fresh.store(Fixtures.goTrue())
        } else {
            guard case .unavailable = outcome else { Issue.record("got \(outcome)"); return }
            #expect(try directoryBytes() == before)
        }
    }

    /// Vaults written before identities were recorded keep the old rule until their first
    /// successful open, which records the identity.
    @Test func aGoldenVaultGainsTheRecordOnItsFirstOpen() async throws {
        let golden = try GoldenVaultTests.copy("0.1.0", "signed-in-biometric")
        let header = golden.path + "-header"
        #expect(try HeaderFile.read(at: header)?.keyIdentity == nil, "0.1.0 recorded no identity")
        // Until then: another key name missing is a lost key, as it always was (no wipe here).
        #expect(throws: VaultError.self) { _ = try Vault.open(at: golden.path, keyProvider: KeyFileProvider(path: golden.directory.file("x.key"))) }
        let vault = try Vault.open(at: golden.path, keyProvider: golden.keys)
        await vault.close()
        let recorded = try #require(try HeaderFile.read(at: header)?.keyIdentity)
        #expect(recorded.names(golden.keys.identity))
        #expect(throws: VaultError.otherKey(vaultKey: Self.vaultKey, providerKey: Self.named("x.key"))) {
            _ = try Vault.open(at: golden.path, keyProvider: KeyFileProvider(path: golden.directory.file("x.key")))
        }
    }

    /// A rekey to a key file of another name: the vault names the new key from then on.
    @Test func aRekeyNamesTheNewKey() async throws {
        _ = try await signedIn()
        let vault = try fixture.open()
        let next = try KeyFileProvider.create(at: fixture.directory.file("next.key"))
        try await vault.rekey(to: next)
        await vault.close()
        #expect(try HeaderFile.read(at: fixture.files.header)?.keyIdentity?.names(next.identity) == true)
        try FileManager.default.removeItem(atPath: fixture.keyPath)
        #expect(
            throws: VaultError.otherKey(
                vaultKey: "\(RecordedKeyIdentity(KeyIdentity(kind: "keyFile", name: "next.key")))", providerKey: Self.named("vault.key"))
        ) {
            _ = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
        }
    }
}
