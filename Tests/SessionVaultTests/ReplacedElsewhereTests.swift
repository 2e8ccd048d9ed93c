import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Another process wipes, rekeys or signs out while this process has the vault open: nothing is
/// handed out, decided or written from the old file, and subscribers are told.
@Suite("Another process wipes, rekeys or signs out: this process sees it")
struct ReplacedElsewhereTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }

    func openWithSession() async throws -> (Vault, Session) {
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let session = try await vault.store(Fixtures.goTrue(refresh: "before-the-wipe", access: "access-before"))
        return (vault, session)
    }

    /// The first event on `events` (the test's own deadline, not a sleep, bounds it).
    func firstEvent(_ events: AsyncStream<VaultEvent>) async -> VaultEvent? {
        for await event in events { return event }
        return nil
    }

    @Test func aWipeInAnotherProcessIsSeenBeforeAnyTokenIsHandedOut() async throws {
        let (vault, _) = try await openWithSession()
        let events = await vault.events()
        let wiper = try TestHostProcess(["wipe", path, keyPath], scratch: directory)
        #expect(await wiper.finish() == 0, "\(wiper.output)")
        #expect(try await vault.refreshToken() == nil, "the wiped refresh token is never handed out")
        #expect(try await vault.accessToken() == nil)
        guard case .missing = try await vault.resumePath() else { Issue.record("a wiped vault is not valid"); return }
        // A late rotation finds no session instead of writing into deleted files.
        await #expect(throws: VaultError.noSession) { try await vault.rotate(Fixtures.goTrue(refresh: "late", access: "late")) }
        #expect(await firstEvent(events) == .wiped(nil))
        // And the vault keeps working on the file that is there now.
        let stored = try await vault.store(Fixtures.goTrue(refresh: "after-the-wipe", access: "access-after"))
        let reopened = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        #expect(try await reopened.currentSession()?.id == stored.id)
        await reopened.close()
        await vault.close()
    }

    @Test func aRekeyThenSignOutInAnotherProcessIsSeenThroughTheKeyProvider() async throws {
        let (vault, _) = try await openWithSession()
        let events = await vault.events()
        let newKeyPath = directory.file("new.key")
        let other = try TestHostProcess(["rekey", path, keyPath, newKeyPath], scratch: directory)
        #expect(await other.finish() == 0, "\(other.output)")
        #expect(other.lines == ["rekeyed", "signedOut"])
        // The key provider still yields the old key: a typed answer, never the old file's tokens.
        do {
            let token = try await vault.refreshToken()
            Issue.record("the old file's token was handed out: \(String(describing: token))")
        } catch VaultError.corrupted(let reason) {
            #expect(reason.kind == .wrongKey)
        }
        // The app's key storage catches up (as a keychain item would): the vault reopens with it.
        try FileManager.default.removeItem(atPath: keyPath)
        try FileManager.default.copyItem(atPath: newKeyPath, toPath: keyPath)
        #expect(try await vault.refreshToken() == nil)
        guard case .missing(.signedOut) = try await vault.resumePath() else { Issue.record("expected missing(signedOut)"); return }
        #expect(await firstEvent(events) == .signedOut)
        await vault.close()
    }

    /// The same tokens, fingerprinted again with the new key, are no token update: subscribers
    /// (an app that reloads its screens on `.tokenUpdated`) hear only that something changed.
    @Test func aRekeyElsewhereIsNoTokenUpdate() async throws {
        let (vault, session) = try await openWithSession()
        let events = await vault.events()
        let other = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let next = KeyFileProvider(path: directory.file("next.key"))
        try await other.rekey(to: next)
        await other.close()
        try FileManager.default.removeItem(atPath: keyPath)
        try FileManager.default.copyItem(atPath: next.path, toPath: keyPath)
        try? FileManager.default.removeItem(atPath: KeyFileProvider(path: keyPath).generationRecordPath)
        #expect(try await vault.currentSession()?.tokenVersion == session.tokenVersion)
        #expect(await firstEvent(events) == .changedElsewhere)
        await vault.close()
    }

    @Test func aSignOutInAnotherProcessIsSeen() async throws {
        let (vault, _) = try await openWithSession()
        let other = try TestHostProcess(["signout", path, keyPath], scratch: directory)
        #expect(await other.finish() == 0, "\(other.output)")
        #expect(try await vault.refreshToken() == nil)
        guard case .missing(.signedOut) = try await vault.resumePath() else { Issue.record("expected missing(signedOut)"); return }
        await vault.close()
    }
}
