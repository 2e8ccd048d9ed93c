import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

@Suite("Rekey: re-encrypt under a new root key, crash-safe switch")
struct RekeyTests {
    @Test func afterRekeyOnlyTheNewKeyOpensTheVaultAndTokensSurvive() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let before = try await vault.store(Fixtures.goTrue())
        let newKeyPath = fixture.directory.file("new.key")
        let newKeys = try KeyFileProvider.create(at: newKeyPath)
        try await vault.rekey(to: newKeys)
        let after = try #require(try await vault.currentSession())
        #expect(after.id == before.id)
        #expect(after.refreshTokenFingerprint != before.refreshTokenFingerprint, "fingerprints use the new fingerprint key")
        await vault.close()

        do {
            _ = try fixture.open(create: false)
            Issue.record("the old key still opens the vault")
        } catch {
            guard case VaultError.corrupted(let reason) = error, reason.kind == .wrongKey else { Issue.record("unexpected \(error)"); return }
        }
        let reopened = try Vault.open(at: fixture.path, keyProvider: newKeys, clock: fixture.clock.function, create: false)
        let token = try #require(try await reopened.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "\(Fixtures.refreshMarker)-1")
        #expect(try await reopened.currentSession()?.refreshTokenFingerprint == after.refreshTokenFingerprint)
        for (path, bytes) in fixture.allFileBytes() {
            #expect(!bytes.contains(Fixtures.refreshMarker), "token bytes in \(path)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.files.rekeyTemporary))
    }

    @Test func aCrashAfterTheHeaderSwitchRollsForward() async throws {
        // Produce the re-encrypted copy and its header for real, then put the directory back
        // into the state a crash between "header switched" and "copy renamed" leaves.
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let oldDatabase = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
        let newKeys = try KeyFileProvider.create(at: fixture.directory.file("new.key"))
        let rekeyed = try fixture.open(create: false)
        try await rekeyed.rekey(to: newKeys)
        await rekeyed.close()
        try FileManager.default.moveItem(atPath: fixture.path, toPath: fixture.files.rekeyTemporary)
        try oldDatabase.write(to: URL(fileURLWithPath: fixture.path))
        let header = try #require(try HeaderFile.read(at: fixture.files.header))
        var pending = header
        pending.rekeyPending = true
        // Signed by the new key, as the rekey's own switch writes it.
        let newVaultKeys = try VaultKeys(root: newKeys.rootKey(recorded: nil, create: false).bytes)
        try HeaderFile(path: fixture.files.header, header: header, keys: newVaultKeys).write(pending, durable: true)

        let recovered = try Vault.open(at: fixture.path, keyProvider: newKeys, clock: fixture.clock.function, create: false)
        let token = try #require(try await recovered.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "\(Fixtures.refreshMarker)-1")
        #expect(!FileManager.default.fileExists(atPath: fixture.files.rekeyTemporary))
        #expect(try HeaderFile.read(at: fixture.files.header)?.rekeyPending == false)
    }

    @Test func aCrashBeforeTheHeaderSwitchKeepsTheOldKey() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        // A half-built copy left behind by a crash: ignored and removed; the old key rules.
        try Data(repeating: 0xAB, count: 8192).write(to: URL(fileURLWithPath: fixture.files.rekeyTemporary))
        let reopened = try fixture.open(create: false)
        #expect(try await reopened.currentSession() != nil)
        #expect(!FileManager.default.fileExists(atPath: fixture.files.rekeyTemporary))
    }

    // A locked keystore is "not now" wherever the vault meets it. A rekey whose new key provider is
    // locked reported `.keyProvider`, so the caller was not told to retry.
    @Test func aLockedNewKeystoreIsUnavailableWithItsRetryDelay() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue())
        let newKeys = try InMemoryKeyProvider()
        newKeys.setState(.locked)
        do {
            try await vault.rekey(to: newKeys)
            Issue.record("a locked keystore cannot give a new key")
        } catch {
            guard case .unavailable(let retryAfter, _) = error else { Issue.record("expected unavailable, got \(error)"); return }
            #expect(retryAfter == 1, "the keystore's own retry delay")
        }
        #expect(try await vault.currentSession()?.id == stored.id, "the vault is untouched under its old key")
        #expect(!FileManager.default.fileExists(atPath: fixture.files.rekeyTemporary))
        await vault.close()
    }
}

/// Rekey while another process writes to the same vault.
@Suite("Rekey with another process present: no commit lost, no stale header")
struct RekeyWithAnotherProcessTests {
    @Test func anotherProcessRotatingThroughARekeyLosesNoCommit() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db"), keyPath = directory.file("vault.key"), newKeyPath = directory.file("new.key")
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        try await vault.store(Fixtures.goTrue())
        let rounds = 150
        let writer = try TestHostProcess(["rotate-loop", path, keyPath, "\(rounds)"], scratch: directory)
        #expect(await writer.waitFor("rotated 1 v"))
        try await vault.rekey(to: KeyFileProvider(path: newKeyPath))
        // The app's key storage now holds the new key (as a keychain item would after a rekey).
        #expect(rename(newKeyPath, keyPath) == 0)
        // Verify on the same vault right after the rekey: a healthy file reads as one.
        let report = try await vault.verify()
        #expect(report.intact, "\(report.findings)")
        #expect(await writer.finish() == 0, "\(writer.output)")
        // Every rotation the writer was told succeeded is in the file, one version after another.
        let versions = writer.lines.compactMap { $0.split(separator: " ").last.flatMap { Int64($0.dropFirst()) } }
        #expect(versions.count == rounds)
        #expect(versions == Array(2...Int64(rounds + 1)), "no version lost or repeated")
        let reopened = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath), create: false)
        #expect(try await reopened.currentSession()?.tokenVersion == Int64(rounds + 1))
        let token = try #require(try await reopened.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "loop-\(rounds)")
        #expect(try await reopened.verify().intact)
        await reopened.close()
        await vault.close()
    }
}
