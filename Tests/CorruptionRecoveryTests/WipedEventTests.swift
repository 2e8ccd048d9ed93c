import Foundation
import Testing
@testable import SessionVault

/// A recovery wipe is an event like any other: subscribers hear `.wiped(kind)` before anything
/// else, and go on hearing the fresh vault on the same stream.
@Suite("Recovery wipe: subscribers are told, and keep listening")
struct WipedEventTests {
    @Test func aManagerRecoveringAnOpenVaultDeliversWipedAndKeepsTheStream() async throws {
        let fixture = try await DamageFixture.make()
        let vault = try fixture.open()
        let events = await vault.events()
        // Nothing listens on port 9: the refresher must never be needed here.
        let nowhere = try #require(URL(string: "http://127.0.0.1:9"))
        let manager = ResumeManager(vault: vault, refresher: GoTrueRefresher(baseURL: nowhere, apiKey: "anon"))
        // Another process commits a row the library can no longer trust.
        try fixture.raw().execute("UPDATE sessions SET refresh_expires_at = issued_at - 1000")
        #expect(await manager.resume() == .login(reason: .wipedAfterCorruption(.invariantViolation), showExpiredMessage: false))
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .wiped(.invariantViolation))
        // The same vault object now holds the fresh vault; the stream carries its events.
        #expect(try await manager.vault === vault)
        let stored = try await vault.store(TokenValues.response(9))
        #expect(await iterator.next() == .tokenUpdated(stored.refreshTokenFingerprint))
        await vault.close()
    }
}
