import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// With 100 s left on a one-hour access token (inside the five-minute refresh-ahead margin) and
/// the server unreachable, `freshAccessToken()` answered `offline` instead of the token the API
/// would still accept for 100 s. Refreshing ahead is an optimisation: a failed one hands out the
/// live token while it has more than `ResumePolicy.liveTokenFloor` left; after that, offline.
@Suite("A refresh ahead that fails hands out the live token", .timeLimit(.minutes(2)))
struct RefreshAheadFailureTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager() -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    /// A session whose one-hour access token has `left` seconds to live.
    func session(left: TimeInterval) async throws -> Session {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        let stored = try await vault.store(Fixtures.goTrue())
        await vault.close()
        let expiry = try #require(stored.accessExpiresAt)
        fixture.clock.advance(by: expiry.timeIntervalSince(fixture.clock.now) - left)
        return stored
    }

    @Test(arguments: [true, false])
    func theLiveTokenServesWhileTheServerIsDown(forUser: Bool) async throws {
        let stored = try await session(left: 100)
        server.enqueue(.json(status: 503, #"{"message":"upstream down"}"#))
        let manager = manager()
        let outcome = forUser ? await manager.freshAccessToken() : await manager.backgroundAccessToken()
        guard case .token(_, let session) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(session.id == stored.id && session.tokenVersion == stored.tokenVersion)
        #expect(server.requestCount == 1, "the refresh ahead was tried")
        // The next call tries again, and stores what the server answers then.
        server.enqueue(.json(PeerBugLaunchTests.rotated("ahead")))
        guard case .token(_, let renewed) = await manager.freshAccessToken() else { Issue.record("no token"); return }
        #expect(renewed.tokenVersion == stored.tokenVersion + 1)
    }

    @Test func aRefusalWithoutVerdictStillHandsOutTheLiveToken() async throws {
        _ = try await session(left: 100)
        server.enqueue(ScriptedResponse(status: 400))
        guard case .token = await manager().freshAccessToken() else { Issue.record("the live token was withheld"); return }
    }

    @Test func belowTheFloorTheAnswerIsOffline() async throws {
        _ = try await session(left: ResumePolicy.liveTokenFloor - 1)
        server.enqueue(.json(status: 503, #"{"message":"upstream down"}"#))
        let outcome = await manager().freshAccessToken()
        guard case .offline = outcome else { Issue.record("got \(outcome)"); return }
    }

    @Test func theServersVerdictStillEndsTheSession() async throws {
        _ = try await session(left: 100)
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant"}"#))
        let outcome = await manager().freshAccessToken()
        guard case .sessionEnded = outcome else { Issue.record("got \(outcome)"); return }
    }
}
