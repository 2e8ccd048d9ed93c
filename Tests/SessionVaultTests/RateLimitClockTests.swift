import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// A refresh answered 429 `retry_after: 30`, then the device clock moved two days back: every
/// answer was `offline(retry in 86400 s)` for more than a day with no request, and still after a
/// sign-out and a new sign-in. Rules: a server's wait is never longer than it asked, whatever the
/// clock did; a new sign-in is a fresh start for its own refreshes.
@Suite("A 429's wait is never longer than the server asked", .timeLimit(.minutes(2)))
struct RateLimitClockTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager() -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    func expiredSession() async throws {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        fixture.clock.advance(by: 2 * 3600)
    }

    // Computed: the lazily made storage of a stored static is reported by LeakSanitizer.
    static var limited: ScriptedResponse { .json(status: 429, #"{"msg":"Request rate limit reached","retry_after":30}"#) }

    @Test func aClockMovedBackDoesNotStretchTheWait() async throws {
        try await expiredSession()
        server.enqueue(Self.limited)
        let manager = manager()
        guard case .offline(_, let first) = await manager.resume() else { Issue.record("not offline after a 429"); return }
        #expect(first == 30)
        fixture.clock.advance(by: -2 * 86_400)
        // This process, and a new one reading the vault's record: at most the 30 s asked.
        for caller in [manager, self.manager()] {
            let outcome = await caller.refreshNow()
            guard case .offline(_, let wait) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(wait <= 30, "waits \(wait) s after the clock moved back")
        }
        #expect(server.requestCount == 1, "nothing sent during the wait")
        fixture.clock.advance(by: 31)
        server.enqueue(.json(PeerBugLaunchTests.rotated("after-the-wait")))
        let after = await self.manager().refreshNow()
        guard case .home = after else { Issue.record("still \(after) once the wait asked for had passed"); return }
        #expect(server.requestCount == 2)
    }

    @Test func aNewSignInIsAFreshStart() async throws {
        try await expiredSession()
        server.enqueue(.json(status: 429, #"{"msg":"Request rate limit reached","retry_after":86400}"#))
        let manager = manager()
        guard case .offline = await manager.resume() else { Issue.record("not offline after a 429"); return }
        server.enqueue(ScriptedResponse(status: 204))
        _ = try await manager.signOut()
        server.enqueue(.json(PeerBugLaunchTests.rotated("new-sign-in")))
        _ = try await manager.signIn(email: "alice@example.com", password: "correct horse battery staple")
        // The new session's own token comes due: its refresh goes out, in this process and another.
        fixture.clock.advance(by: 2 * 3600)
        server.enqueue(.json(PeerBugLaunchTests.rotated("new-session-refreshed")))
        let outcome = await self.manager().freshAccessToken()
        guard case .token = outcome else { Issue.record("the old session's 429 held the new one: \(outcome)"); return }
        #expect(server.requestCount == 4)
    }
}
