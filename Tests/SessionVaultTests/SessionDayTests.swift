import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The session's day after launch: refresh storms, the clock, a server's 429, the idle lock,
/// extensions, 401s bound to their token, the auto-refresh loop across sign-in and sign-out, and
/// events for a UI. Every test talks to a real HTTP server on 127.0.0.1 whose request log it reads
/// (`RotatingTokenServer`), on real vault files, with time moved by hand.
@Suite("The session's day: storms, clock, 429, idle lock, 401s, loop, events", .timeLimit(.minutes(3)))
struct SessionDayTests {
    let fixture = TestVault()

    static func policy(idle: TimeInterval?) -> ResumePolicy {
        var policy = ResumePolicy()
        policy.idleTimeout = idle
        return policy
    }

    func manager(_ server: RotatingTokenServer, idle: TimeInterval? = nil, biometrics: (any BiometricGate)? = nil) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
            biometrics: biometrics, policy: Self.policy(idle: idle), clock: fixture.clock.function,
            backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    /// Stores the server's sign-in (`R-0` / `A-0`), as the app would after a password grant.
    @discardableResult
    func signIn(_ server: RotatingTokenServer, biometric: Bool = false) async throws -> Session {
        let vault = try fixture.open()
        let session = try await vault.store(try TokenResponse(json: Data(server.signInJSON().utf8)), biometricEnabled: biometric)
        if biometric { try await vault.setBiometricUnlock(true, domainState: [1, 2, 3]) }
        await vault.close()
        return session
    }

    func token(_ outcome: FreshTokenOutcome) -> String? {
        guard case .token(let token, _) = outcome else { return nil }
        return token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Short lifetimes

    @Test(
        "a short or missing lifetime is not refreshed on every call, only when due",
        arguments: [60, 300, nil] as [Int?])
    func shortLifetimesAreRefreshedOncePerDueToken(expiresIn: Int?) async throws {
        let server = try RotatingTokenServer(expiresIn: expiresIn, clock: fixture.clock)
        let stored = try await signIn(server)
        let manager = manager(server)
        for _ in 0..<5 { #expect(token(await manager.freshAccessToken()) == "A-0") }
        #expect(server.refreshCount == 0, "a token just issued is not refreshed for its short life: \(server.refreshCount) requests")
        // Due: expiry minus a quarter of the lifetime at most, never sooner than 30 s after receipt.
        let lifetime = TimeInterval(expiresIn ?? 3600)
        let due = max(lifetime - min(300, lifetime / 4), 30)
        #expect(ResumePolicy().refreshDue(for: stored) == stored.issuedAt.addingTimeInterval(due))
        fixture.clock.advance(by: due - 1)
        #expect(token(await manager.freshAccessToken()) == "A-0")
        #expect(server.refreshCount == 0)
        fixture.clock.advance(by: 1)
        for _ in 0..<5 { #expect(token(await manager.freshAccessToken()) == "A-1") }
        #expect(server.refreshCount == 1, "one refresh per due token: \(server.refreshCount)")
        #expect(server.reuseCount == 0)
    }

    @Test("the auto-refresh loop sleeps until a 60 s token is due instead of refreshing without pause")
    func autoRefreshWithAShortLifetimeSleeps() async throws {
        let server = try RotatingTokenServer(expiresIn: 60, clock: fixture.clock)
        let stored = try await signIn(server)
        let clock = SteppedClock(fixture.clock)
        let manager = manager(server)
        await manager.startAutoRefresh(clock: clock)
        let first = try #require(await clock.waitForSleeper())
        #expect(first == stored.issuedAt.addingTimeInterval(45), "60 s token: refreshed 15 s before expiry")
        #expect(server.refreshCount == 0)
        clock.advance(to: first)
        let second = try #require(await clock.waitForSleeper(after: first))
        #expect(second == first.addingTimeInterval(45))
        #expect(server.refreshCount == 1)
        await manager.stopAutoRefresh()
    }

    // MARK: A clock moved back

    /// Found by the session histories (shrunk to three steps: a sign-in, the clock back 83 minutes,
    /// the loop): the loop measured the token's age against the rolled-back clock, took it for
    /// fresh and slept until its due time as that clock reads it, an hour and more past its real
    /// expiry, while every background call refreshed once to re-anchor.
    @Test("the auto-refresh loop takes no freshness from a clock moved back: one refresh re-anchors, then it sleeps")
    func autoRefreshAfterARollbackRefreshesOnce() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        fixture.clock.advance(by: 600)
        let manager = manager(server)
        #expect(token(await manager.freshAccessToken()) == "A-0")
        fixture.clock.advance(by: -5000)
        let clock = SteppedClock(fixture.clock)
        await manager.startAutoRefresh(clock: clock)
        let next = try #require(await clock.waitForSleeper())
        #expect(server.refreshCount == 1, "one refresh re-anchors the rolled-back clock: \(server.refreshCount)")
        #expect(next == fixture.clock.now.addingTimeInterval(3300), "then asleep until the new token is due")
        #expect(token(await manager.freshAccessToken()) == "A-1")
        #expect(server.refreshCount == 1)
        await manager.stopAutoRefresh()
    }

    @Test("a clock set back an hour costs at most one refresh, not one per call")
    func aRollbackCostsOneRefresh() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        fixture.clock.advance(by: 600)
        var manager = manager(server)
        #expect(token(await manager.freshAccessToken()) == "A-0")
        fixture.clock.advance(by: -3600)
        for _ in 0..<40 {
            guard case .token = await manager.freshAccessToken() else { Issue.record("an API call failed after the rollback"); return }
        }
        #expect(server.refreshCount <= 1, "40 calls after one rollback: \(server.refreshCount) refreshes")
        // Three later launches at the rolled-back time: no more.
        for _ in 0..<3 {
            manager = self.manager(server)
            guard case .home = await manager.resume() else { Issue.record("a launch after the rollback did not go home"); return }
        }
        #expect(server.refreshCount <= 1)
        #expect(server.reuseCount == 0)
    }

    // MARK: A server's 429

    @Test("a 429's retry_after is honoured in this process and by a sibling, with no request meanwhile")
    func rateLimitIsKeptForEveryProcess() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        fixture.clock.advance(by: 3600)
        server.rateLimitNext(1, retryAfter: 60)
        let manager = manager(server)
        guard case .offline(let first) = await manager.freshAccessToken() else { Issue.record("a 429 is offline"); return }
        #expect(first == 60)
        #expect(server.refreshCount == 1)
        fixture.clock.advance(by: 0.012)
        guard case .offline(let again) = await manager.freshAccessToken() else { Issue.record("still offline"); return }
        #expect(again > 59 && again <= 60)
        // Another process (its own vault connection and manager) honours the same 429.
        let sibling = self.manager(server)
        guard case .offline = await sibling.refreshNow() else { Issue.record("the sibling must wait too"); return }
        #expect(server.refreshCount == 1, "no request before retry_after passed: \(server.refreshCount)")
        fixture.clock.advance(by: 60)
        #expect(token(await sibling.freshAccessToken()) == "A-1")
        #expect(server.refreshCount == 2)
        #expect(server.reuseCount == 0)
    }

    // MARK: The idle lock

    @Test("API calls every 10 minutes are activity: no lock at +30 min; the next morning locks")
    func apiCallsCountAsActivity() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        let manager = manager(server, idle: 30 * 60)
        for call in 1...12 {
            fixture.clock.advance(by: 600)
            guard case .token = await manager.freshAccessToken() else { Issue.record("call \(call) at +\(call * 10) min was locked"); return }
        }
        fixture.clock.advance(by: 8 * 3600)
        #expect(await self.manager(server, idle: 30 * 60).resume() == .locked)
    }

    @Test("a clock set back never skips the idle lock", arguments: [121.0, 600.0, 30.0])
    func aRolledBackClockStillLocks(back seconds: TimeInterval) async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        let stored = try await signIn(server)
        // Two idle hours on the true clock would lock; the clock is set to before the last activity.
        fixture.clock.set(stored.lastActiveAt.addingTimeInterval(-seconds))
        for _ in 0..<2 {
            #expect(await manager(server, idle: 30 * 60).resume() == .locked)
            guard case .locked = await manager(server, idle: 30 * 60).freshAccessToken() else { Issue.record("an API call skipped the lock"); return }
        }
        #expect(server.refreshCount == 0)
        // With biometric unlock on, the rolled-back clock asks for the prompt, like the idle one.
        let gate = ScriptedBiometricGate()
        let vault = try fixture.open()
        try await vault.setBiometricUnlock(true, domainState: [1, 2, 3])
        await vault.close()
        let manager = manager(server, idle: 30 * 60, biometrics: gate)
        guard case .home = await manager.resume() else { Issue.record("a passed prompt goes home"); return }
        #expect(gate.promptCount == 1)
        // The unlock re-anchored the clock: the next launch at the same time needs no prompt.
        guard case .home = await self.manager(server, idle: 30 * 60, biometrics: gate).resume() else { Issue.record("home after unlock"); return }
        #expect(gate.promptCount == 1)
    }

    @Test("an extension gets a token after the app's idle timeout without a prompt, and it is not activity")
    func extensionsUseBackgroundTokens() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server, biometric: true)
        fixture.clock.advance(by: 45 * 60)
        let widget = manager(server, idle: 30 * 60)
        #expect(token(await widget.backgroundAccessToken()) == "A-0")
        guard case .locked = await widget.freshAccessToken() else { Issue.record("the UI call still locks"); return }
        // Past the access token's expiry: refreshed for the extension, still without a prompt.
        fixture.clock.advance(by: 3600)
        #expect(token(await widget.backgroundAccessToken()) == "A-1")
        // Not activity: the app still asks for its unlock.
        let gate = ScriptedBiometricGate()
        guard case .home = await manager(server, idle: 30 * 60, biometrics: gate).resume() else { Issue.record("home after prompt"); return }
        #expect(gate.promptCount == 1)
    }

    // MARK: Offline sign-out

    @Test("an offline sign-out clears the vault and says the server session may outlive it")
    func anOfflineSignOutSaysTheServerSessionMayLiveOn() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        let manager = manager(server)
        _ = try await manager.vault
        server.http.stop()
        let result = try await manager.signOut()
        guard case .failed = result.server else { Issue.record("offline is a failed server call: \(result.server)"); return }
        #expect(result.serverSessionMayOutlive, "the outcome must say the server may still hold the session")
        #expect(try await manager.vault.currentSession() == nil, "cleared locally all the same")
        #expect(try await manager.vault.refreshToken() == nil)
    }

    // MARK: 401s

    @Test("PostgREST's 401 'JWT expired' refreshes once and keeps the session")
    func jwtExpiredRefreshes() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        let stored = try await signIn(server)
        let manager = manager(server)
        let sent = try #require(try await manager.vault.accessToken())
        let outcome = await manager.handleAPIFailure(status: 401, body: Data(#"{"code":"PGRST301","message":"JWT expired"}"#.utf8), sentToken: sent)
        guard case .home(let session)? = outcome else { Issue.record("JWT expired must not end the session: \(String(describing: outcome))"); return }
        #expect(session.id == stored.id && session.tokenVersion == 2)
        #expect(server.refreshCount == 1)
        // The app contract's structured code keeps its meaning.
        let renewed = try #require(try await manager.vault.accessToken())
        #expect(
            await manager.handleAPIFailure(
                status: 401, body: Data(#"{"success":false,"error":{"code":"SESSION_EXPIRED"}}"#.utf8),
                sentToken: renewed) == .login(reason: .sessionExpired, showExpiredMessage: true))
    }

    @Test("a late 401 for an earlier token ends neither the next user's session nor a rotated one")
    func lateFailuresAreBoundToTheirToken() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        let manager = manager(server)
        let userA = try #require(try await manager.vault.accessToken())
        let expired = Data(#"{"success":false,"error":{"code":"SESSION_EXPIRED"}}"#.utf8)
        // Rotated past the token: the late answer neither ends nor refreshes.
        guard case .home = await manager.refreshNow() else { Issue.record("refresh"); return }
        guard case .home(let rotated)? = await manager.handleAPIFailure(status: 401, body: expired, sentToken: userA) else {
            Issue.record("a 401 for a rotated-away token ended the session"); return
        }
        #expect(rotated.tokenVersion == 2)
        guard case .home? = await manager.handleAPIFailure(status: 401, body: Data(#"{"error":"invalid_token"}"#.utf8), sentToken: userA) else {
            Issue.record("late invalid_token"); return
        }
        #expect(server.refreshCount == 1, "a late invalid_token does not refresh again")
        // User A signs out, user B signs in; A's late 401 must not end B's session.
        _ = try await manager.signOut()
        let vault = try await manager.vault
        let userB = try await vault.store(try Fixtures.goTrue(refresh: "R-b", access: "A-b"))
        guard case .home(let current)? = await manager.handleAPIFailure(status: 401, body: expired, sentToken: userA) else {
            Issue.record("user A's late 401 ended user B's session"); return
        }
        #expect(current.id == userB.id)
    }

    @Test("a persistent 401: one refresh, then the retried call's failure is final")
    func aPersistentUnauthorizedCostsOneRefresh() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        let manager = manager(server)
        let invalid = Data(#"{"error":"invalid_token"}"#.utf8)
        // The README's loop: the first 401 goes to the manager, the retried call's is final.
        let first = try #require(try await manager.vault.accessToken())
        guard case .home? = await manager.handleAPIFailure(status: 401, body: invalid, sentToken: first) else { Issue.record("refresh"); return }
        // The same failure fed again for the same token (a loop that retries blindly) costs nothing.
        guard case .home? = await manager.handleAPIFailure(status: 401, body: invalid, sentToken: first) else { Issue.record("late"); return }
        #expect(server.refreshCount == 1)
    }

    // MARK: The loop across sign-out and sign-in

    @Test("auto-refresh waits at the login screen and goes on after a sign-in")
    func autoRefreshOutlivesSignOut() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        try await signIn(server)
        let clock = SteppedClock(fixture.clock)
        let manager = manager(server)
        await manager.startAutoRefresh(clock: clock)
        let due = try #require(await clock.waitForSleeper())
        _ = try await manager.signOut()
        // The loop wakes at the signed-out token's due time, finds no session, and waits.
        clock.advance(to: due)
        #expect(await manager.waitUntilAutoRefreshWaitsForWake())
        #expect(await manager.isAutoRefreshing)
        // A new sign-in: the loop sleeps until the new token is due, then refreshes it.
        let vault = try await manager.vault
        let next = try await vault.store(try TokenResponse(json: Data(RotatingTokenServer.pair(0, expiresIn: 600).utf8)))
        let nextDue = try #require(await clock.waitForSleeper(after: fixture.clock.now))
        #expect(nextDue == next.issuedAt.addingTimeInterval(450))
        clock.advance(to: nextDue)
        #expect(await server.waitForRefreshes(1))
        await manager.stopAutoRefresh()
        #expect(server.refreshCount == 1 && server.reuseCount == 0)
    }

    /// Found by the session histories (shrunk to two steps: the loop started and stopped at the
    /// login screen, then started again): the stopped loop's wait, ending after the new loop had
    /// begun its own, cleared the new loop's wake-up, so an unlock or a launch that reached home
    /// could no longer set it going (only a change in the file still could).
    @Test("a loop started again right after a stop keeps its own wake-up")
    func aRestartedLoopKeepsItsWakeUp() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        let clock = SteppedClock(fixture.clock)
        let manager = manager(server)
        for round in 1...10 {
            await manager.startAutoRefresh(clock: clock)
            #expect(await manager.waitUntilAutoRefreshWaitsForWake(timeout: 10), "round \(round): the loop does not wait for a wake")
            // Past the wait the loop's wake-up must stay while it runs.
            let stillThere = await manager.autoRefreshWake != nil
            #expect(stillThere, "round \(round)")
            await manager.stopAutoRefresh()
        }
        #expect(server.refreshCount == 0)
    }

    // MARK: Events for a UI

    @Test("session events: initial session, refresh, sign-out with its cause, sign-in")
    func sessionEventsForAUI() async throws {
        let server = try RotatingTokenServer(expiresIn: 3600, clock: fixture.clock)
        let stored = try await signIn(server)
        let manager = manager(server)
        var events = await manager.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(stored))
        guard case .home(let refreshed) = await manager.refreshNow() else { Issue.record("refresh"); return }
        #expect(await events.next() == .tokenRefreshed(refreshed))
        _ = try await manager.signOut()
        #expect(await events.next() == .signedOut(reason: .signedOut, cause: .user, showExpiredMessage: false))
        let vault = try await manager.vault
        let next = try await vault.store(try TokenResponse(json: Data(RotatingTokenServer.pair(0, expiresIn: 3600).utf8)))
        #expect(await events.next() == .signedIn(next))
        // The server ends it: the UI can say "your session has expired".
        let gone = Data(#"{"success":false,"error":{"code":"SESSION_EXPIRED"}}"#.utf8)
        let sent = try #require(try await vault.accessToken())
        _ = await manager.handleAPIFailure(status: 401, body: gone, sentToken: sent)
        #expect(await events.next() == .signedOut(reason: .sessionExpired, cause: .serverEnded, showExpiredMessage: true))
    }
}
