import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    /// The peers' session-loss bug about undecodable stored credentials, on a real vault damaged by
    /// a keyed writer.
    @Suite("Peer bugs: undecodable stored credentials")
    struct PeerBugCorruptionTests {
        // okta-mobile-swift #138: after an SDK update changed the token's JSON format, the stored
        // credential failed to decode; `Credential.default` returned nil silently, the old entry
        // could not be deleted, and saving a new token after login did not replace it, so users
        // had to log in on every launch. An undecodable row is `corrupted`, recovered once, and
        // the next sign-in stores, reads back and goes home.
        @Test func oktaMobileSwift138_anUndecodableRowIsRecoveredAndAFreshSignInStoresAndReads() async throws {
            let fixture = try await DamageFixture.make()
            // The row as an older (or newer) format wrote it: plain JSON where the sealed token was.
            try fixture.raw().execute(#"UPDATE sessions SET refresh_token = CAST('{"format":0,"refresh_token":"R-old"}' AS BLOB)"#)
            // Nothing listens on port 9: the refresher must never be needed here.
            let nowhere = try #require(URL(string: "http://127.0.0.1:9"))
            let manager = ResumeManager(path: fixture.path, keyProvider: fixture.keys, refresher: GoTrueRefresher(baseURL: nowhere, apiKey: "anon"))
            #expect(
                await manager.resume() == .login(reason: .wipedAfterCorruption(.recordAuthenticationFailed), showExpiredMessage: false),
                "told, not a silent nil")
            #expect(Vault.tombstone(at: fixture.path)?.reason == .recordAuthenticationFailed)
            // The user signs in again: the new credentials replace what was there and read back.
            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            let stored = try await vault.store(TokenValues.response(2))
            let readsBack = TokenValues.text(try await vault.refreshToken()) == TokenValues.refresh(2)
            #expect(readsBack, "the new refresh token reads back")
            #expect(try await vault.currentSession() == stored)
            #expect(try await vault.verify().intact)
            await vault.close()
            // And the next launch goes home on them, with no second recovery.
            guard case .home(let session) = await manager.resume() else { Issue.record("after sign-in: home"); return }
            #expect(session.id == stored.id)
        }
    }
}
