import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A recovery wipe acts only on the files it diagnosed: when another process recovered the same
/// vault and a user signed in afresh between the diagnosis and the wipe, the new vault is left
/// alone and the late recovery decides again on what is there now.
@Suite("A recovery wipe re-checks, under the lock, that the files are the ones it diagnosed")
struct RecoveryRecheckTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }
    /// Nothing listens there: no test here may reach the network.
    let unreachable = URL(string: "http://127.0.0.1:9/auth/v1")!

    /// A vault with a session whose page 1 is then damaged: every open says notADatabase.
    func damagedVault() async throws {
        let vault = try Vault.open(at: path, keyProvider: keys)
        try await vault.store(Fixtures.goTrue(refresh: "before-damage"))
        await vault.close()
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: 1000)
        let byte = try handle.read(upToCount: 1)?.first ?? 0
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
    }

    /// The corruption an open of the vault as it is now reports.
    func diagnose() throws -> CorruptionReason {
        do {
            let vault = try Vault.open(at: path, keyProvider: keys, create: false)
            _ = vault
        } catch {
            if case .corrupted(let reason) = error { return reason }
            throw error
        }
        Issue.record("the damaged vault opened")
        return CorruptionReason(.notADatabase, "not diagnosed")
    }

    /// What "A" does: recovers the damaged vault and signs a user in afresh.
    func recoverAndSignInAfresh() async throws -> Session {
        let manager = ResumeManager(path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: unreachable, apiKey: "anon"))
        #expect(await manager.resume() == .login(reason: .wipedAfterCorruption(.notADatabase), showExpiredMessage: false))
        let vault = try await manager.vault
        let stored = try await vault.store(Fixtures.goTrue(refresh: "after-recovery"))
        await vault.close()
        return stored
    }

    func expectSessionStill(_ stored: Session) async throws {
        let vault = try Vault.open(at: path, keyProvider: keys, create: false)
        #expect(
            try await vault.currentSession()?.refreshTokenFingerprint == stored.refreshTokenFingerprint,
            "the session stored after the first recovery was wiped by the late one")
        await vault.close()
    }

    @Test func aResumeHeldBeforeItsRecoveryWipeLeavesTheVaultThatReplacedTheDamagedOne() async throws {
        try await damagedVault()
        let go = directory.file("go")
        // B: meets the damaged vault and is held just before its recovery wipe.
        let late = try TestHostProcess(["resume-held", path, keyPath, go], scratch: directory)
        #expect(await late.waitFor("held", timeout: 60), "\(late.output)")
        // A: recovers the same damage and a user signs in afresh (new database, header and key).
        let stored = try await recoverAndSignInAfresh()
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        #expect(await late.finish(timeout: 60) == 0, "\(late.output)\n\(late.log)")
        let fingerprint = try #require(stored.refreshTokenFingerprint?.hex)
        #expect(late.lines.last == "home \(fingerprint) v1", "the held process must decide again on the new vault: \(late.output)\n\(late.log)")
        try await expectSessionStill(stored)
    }

    /// Found by the session histories: the token calls took the decision made again after
    /// `changedElsewhere` (home, on the new vault) without reading the new vault's access token,
    /// and answered `unavailable` ("the refresh stored no access token"), though no refresh had run
    /// and the new session's token was there.
    @Test func aBackgroundTokenRequestHeldBeforeItsRecoveryWipeGetsTheNewSessionsToken() async throws {
        try await damagedVault()
        let go = directory.file("go")
        // Its clock stands a minute ahead: the sign-in made while it is held must not lie in its
        // future (that reads as a clock moved back, which locks), however slow the machine.
        let late = try TestHostProcess(["held-at", path, keyPath, go, "\(Date().timeIntervalSince1970 + 60)", "background"], scratch: directory)
        #expect(await late.waitFor("held", timeout: 60), "\(late.output)")
        let stored = try await recoverAndSignInAfresh()
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        #expect(await late.finish(timeout: 60) == 0, "\(late.output)\n\(late.log)")
        #expect(late.lines.last == "token", "the held extension must get the new session's token: \(late.output)\n\(late.log)")
        try await expectSessionStill(stored)
    }

    @Test func anExplicitRecoverWithADiagnosisOfTheOldFilesLeavesTheNewVault() async throws {
        try await damagedVault()
        let late = try diagnose()
        let stored = try await recoverAndSignInAfresh()
        var refusal: VaultError?
        do {
            try Vault.recover(at: path, keyProvider: keys, reason: late)
        } catch {
            refusal = error
        }
        #expect(refusal != nil, "a recovery decided on files that were replaced since must not wipe")
        try await expectSessionStill(stored)
        #expect(Vault.tombstone(at: path) == nil)
    }

    @Test func aRecoverWithADiagnosisOfTheFilesStillThereWipes() async throws {
        try await damagedVault()
        let reason = try diagnose()
        try Vault.recover(at: path, keyProvider: keys, reason: reason)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: keyPath))
        #expect(Vault.tombstone(at: path)?.reason == .notADatabase)
    }

    @Test func aWipeByAVaultWhoseFileWasReplacedElsewhereLeavesTheNewVault() async throws {
        let stale = try Vault.open(at: path, keyProvider: keys)
        try await stale.store(Fixtures.goTrue(refresh: "first-user"))
        // Another process wipes the vault and the next user signs in.
        let other = try Vault.open(at: path, keyProvider: keys)
        try await other.wipe()
        let fresh = try Vault.open(at: path, keyProvider: keys)
        let stored = try await fresh.store(Fixtures.goTrue(refresh: "next-user"))
        await fresh.close()
        var refusal: VaultError?
        do { try await stale.wipe() } catch { refusal = error }
        if case .changedElsewhere? = refusal {} else { Issue.record("expected changedElsewhere, got \(String(describing: refusal))") }
        try await expectSessionStill(stored)
        // The stale vault reopens on what is there now.
        #expect(try await stale.currentSession()?.refreshTokenFingerprint == stored.refreshTokenFingerprint)
        await stale.close()
    }
}
