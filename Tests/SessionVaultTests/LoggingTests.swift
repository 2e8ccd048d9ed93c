import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("Logging: the library logs through the caller's Logger, fingerprints only")
struct LoggingTests {
    @Test func storeRotateRefreshAndSignOutLogNoTokenBytes() async throws {
        let store = RecordingLogHandler.Store()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(store: store) }
        let fixture = TestVault()
        let server = try ScriptedHTTPServer()
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys, policy: policy, clock: fixture.clock.function, logger: logger)
        let stored = try await vault.store(Fixtures.goTrue())
        try await vault.rotate(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-2", access: "\(Fixtures.accessMarker)-2"))
        fixture.clock.advance(by: 7200)
        server.enqueue(
            .json(#"{"access_token":"\#(Fixtures.accessMarker)-3","token_type":"bearer","expires_in":3600,"refresh_token":"\#(Fixtures.refreshMarker)-3"}"#))
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: \#(Fixtures.refreshMarker)"}"#))
        let manager = ResumeManager(vault: vault, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon"))
        guard case .home = await manager.resume() else { Issue.record("expected home"); return }
        fixture.clock.advance(by: 7200)
        _ = await manager.resume()
        try await vault.signOut()

        let lines = store.all
        #expect(lines.count >= 4, "the library logged through the logger it was given")
        #expect(lines.contains { $0.contains(stored.refreshTokenFingerprint?.hex ?? "none") }, "fingerprints identify tokens in logs")
        for line in lines {
            #expect(!line.contains(Fixtures.refreshMarker), "a refresh token reached a log line")
            #expect(!line.contains(Fixtures.accessMarker), "an access token reached a log line")
        }
    }
}
