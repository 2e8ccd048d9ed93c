import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// One vault per process, reached through the manager that owns or borrows it; policy, clock
/// and logger given once. Real vault files, a real HTTP server on 127.0.0.1, a clock moved by hand.
@Suite("One way in: the manager owns or borrows the one vault", .timeLimit(.minutes(2)))
struct OneWayInTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    var refresher: GoTrueRefresher { GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5) }

    static let refreshed = #"{"access_token":"access-2","token_type":"bearer","expires_in":3600,"refresh_token":"refresh-2","user":{"id":"user-123"}}"#

    @Test func anOwnedVaultOpensOnFirstUseAndIsTheOneResumeUses() async throws {
        let manager = ResumeManager(path: fixture.path, keyProvider: fixture.keys, refresher: refresher, clock: fixture.clock.function)
        // Before any resume: the sign-in is stored through the manager's own vault.
        let vault = try await manager.vault
        let stored = try await vault.store(Fixtures.goTrue())
        #expect(await manager.resume() == .home(stored))
        #expect(try await manager.vault === vault, "one vault object: the file is never opened twice")
        #expect(server.requestCount == 0)
    }

    @Test func aBorrowedVaultLendsItsPolicyClockAndLogger() async throws {
        let lines = RecordingLogHandler.Store()
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let vault = try Vault.open(
            at: fixture.path, keyProvider: fixture.keys, policy: policy, clock: fixture.clock.function,
            logger: Logger(label: "app") { _ in RecordingLogHandler(store: lines) })
        try await vault.store(Fixtures.goTrue())
        let manager = ResumeManager(vault: vault, refresher: refresher)
        #expect(await manager.policy == policy)
        // Due by the vault's clock only: the real clock is months before the token's expiry.
        fixture.clock.advance(by: 3600)
        server.enqueue(.json(Self.refreshed))
        await manager.startAutoRefresh()
        #expect(await server.waitForRequests(1), "the loop read the vault's clock and refreshed at once")
        // Shares the loop's refresh (single flight), or finds its result stored.
        guard case .token(_, let session) = await manager.freshAccessToken() else { Issue.record("no token after the refresh"); return }
        await manager.stopAutoRefresh()
        #expect(session.tokenVersion == 2)
        #expect(server.requestCount == 1)
        #expect(lines.all.contains { $0.contains("session refreshed") }, "the manager logs through the vault's logger")
    }
}
