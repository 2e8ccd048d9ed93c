import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// After launch: fresh access tokens for API calls, foreground auto-refresh, sign-out that
/// reaches the server, when to prompt for biometrics, and a refresh answered for another user.
/// Real vault files, a real HTTP server on 127.0.0.1, a clock moved by hand.
@Suite("Session lifecycle: fresh tokens, auto-refresh, server sign-out", .timeLimit(.minutes(2)))
struct SessionLifecycleTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    static func refreshed(_ refresh: String, subject: String = "user-123") -> String {
        #"{"access_token":"access-\#(refresh)","token_type":"bearer","expires_in":3600,"refresh_token":"\#(refresh)","user":{"id":"\#(subject)"}}"#
    }

    static let thirtyMinuteIdle: ResumePolicy = ResumePolicy()

    func manager(biometrics: (any BiometricGate)? = nil, policy: ResumePolicy = thirtyMinuteIdle) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL.appendingPathComponent("auth/v1"), apiKey: "anon-key", timeout: 5),
            biometrics: biometrics, policy: policy, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    @discardableResult
    func storeSession(biometric: Bool = false) async throws -> Session {
        let vault = try fixture.open()
        let session = try await vault.store(Fixtures.goTrue(), biometricEnabled: biometric)
        if biometric { try await vault.setBiometricUnlock(true, domainState: [1, 2, 3]) }
        await vault.close()
        return session
    }

    static func text(_ token: Token) -> String { token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } }

    // MARK: freshAccessToken

    @Test func aLiveAccessTokenIsHandedOutWithoutARequest() async throws {
        try await storeSession()
        guard case .token(let token, _) = await manager().freshAccessToken() else { Issue.record("expected a token"); return }
        #expect(Self.text(token).contains(Fixtures.accessMarker))
        #expect(server.requestCount == 0)
    }

    @Test func aThousandConcurrentCallersMakeOneRefresh() async throws {
        try await storeSession()
        // Inside the idle window, 1 minute before expiry: below the 5-minute minimum TTL.
        fixture.clock.advance(by: 3600 - 60)
        try await touchNow()
        server.enqueue(.json(Self.refreshed("rotated-once")))
        let manager = manager()
        let tokens = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    guard case .token(let token, _) = await manager.freshAccessToken() else { return nil }
                    return Self.text(token)
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(server.requestCount == 1, "one refresh at the server")
        #expect(tokens.allSatisfy { $0 == "access-rotated-once" })
    }

    /// Activity now, so the idle timeout measures from the moved clock.
    func touchNow() async throws {
        let vault = try fixture.open()
        try await vault.touch()
        try await vault.flushActivity()
        await vault.close()
    }

    @Test func freshTokenOutcomesAreTyped() async throws {
        try await storeSession()
        fixture.clock.advance(by: 3600 + 1)
        try await touchNow()
        server.enqueue(.json(status: 503, "down"))
        guard case .offline = await manager().freshAccessToken() else { Issue.record("a server outage is offline"); return }
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant"}"#))
        let ended = await manager().freshAccessToken()
        guard case .sessionEnded(.refreshRejected, true) = ended else { Issue.record("expected sessionEnded: \(ended)"); return }
        #expect(server.requestCount == 2)
    }

    @Test func afterTheIdleTimeoutAFreshTokenNeedsAnUnlock() async throws {
        try await storeSession()
        fixture.clock.advance(by: 3600 + 1)
        guard case .locked = await manager().freshAccessToken() else { Issue.record("idle: unlock first"); return }
        #expect(server.requestCount == 0)
    }

    // MARK: When to prompt for biometrics

    @Test(arguments: [BiometricPromptPolicy.afterIdle, .beforeEveryRefresh])
    func anActiveUsersExpiredTokenRefreshesSilentlyByDefault(prompt: BiometricPromptPolicy) async throws {
        try await storeSession(biometric: true)
        // Active 6 minutes ago, and the access token has expired meanwhile.
        fixture.clock.advance(by: 3600 - 6 * 60)
        try await touchNow()
        fixture.clock.advance(by: 6 * 60 + 1)
        server.enqueue(.json(Self.refreshed("silent")))
        server.enqueue(.json(Self.refreshed("silent-2")))
        let gate = ScriptedBiometricGate()
        var policy = ResumePolicy()
        policy.biometricPrompt = prompt
        guard case .home = await manager(biometrics: gate, policy: policy).resume() else { Issue.record("expected home"); return }
        #expect(gate.promptCount == (prompt == .afterIdle ? 0 : 1))
        // The same rule through freshAccessToken.
        fixture.clock.advance(by: 3600 + 1 - 6 * 60)
        try await touchNow()
        fixture.clock.advance(by: 6 * 60)
        guard case .token = await manager(biometrics: gate, policy: policy).freshAccessToken() else { Issue.record("expected a token"); return }
        #expect(gate.promptCount == (prompt == .afterIdle ? 0 : 2))
    }

    @Test func afterAnAbsenceTheUserUnlocksWithBiometrics() async throws {
        try await storeSession(biometric: true)
        fixture.clock.advance(by: 2 * 3600)
        server.enqueue(.json(Self.refreshed("after-absence")))
        let gate = ScriptedBiometricGate()
        guard case .home = await manager(biometrics: gate).resume() else { Issue.record("expected home"); return }
        #expect(gate.promptCount == 1)
    }

    // MARK: A refresh answered for another user

    @Test func aRefreshAnsweredForAnotherSubjectEndsTheSessionOnce() async throws {
        try await storeSession()
        fixture.clock.advance(by: 3600 + 1)
        try await touchNow()
        server.defaultResponse = .json(Self.refreshed("someone-elses", subject: "another-user"))
        let manager = manager()
        #expect(await manager.resume() == .login(reason: .refreshedForAnotherSubject, showExpiredMessage: false))
        #expect(await manager.resume() == .login(reason: .refreshedForAnotherSubject, showExpiredMessage: false))
        #expect(server.requestCount == 1, "no loop spending refresh tokens")
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() == nil, "nothing of the other subject's tokens stored")
        await vault.close()
    }

    // MARK: Sign-out that reaches the server

    /// `.others` keeps this device signed in: `goTrueSignOutOfTheOtherSessionsKeepsThisOne`.
    @Test(arguments: [SignOutScope.local, .global])
    func goTrueSignOutClearsTheVaultFirstThenTellsTheServer(scope: SignOutScope) async throws {
        try await storeSession()
        server.enqueue(.json(status: 204, ""))
        let manager = manager()
        let result = try await manager.signOut(scope: scope)
        #expect(result.server == .ended)
        let request = try #require(server.requests.first)
        #expect(request.path == "/auth/v1/logout?scope=\(scope.rawValue)")
        #expect(request.header("apikey") == "anon-key")
        #expect(request.header("Authorization")?.hasPrefix("Bearer ") == true)
        #expect(request.header("Authorization")?.contains(Fixtures.accessMarker) == true, "the access token authenticates the logout")
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() == nil)
        #expect(try await vault.currentSession() == nil)
        let audit = try await vault.auditEvents(limit: 5)
        #expect(audit.contains { $0.kind == .serverSignOut && $0.reason == "\(scope.rawValue):ended" })
        await vault.close()
    }

    @Test func goTrueSignOutOfTheOtherSessionsKeepsThisOne() async throws {
        try await storeSession()
        server.enqueue(.json(status: 204, ""))
        let result = try await manager().signOut(scope: .others)
        #expect(result.server == .ended)
        #expect(server.requests.count == 1)
        let request = try #require(server.requests.first)
        #expect(request.path == "/auth/v1/logout?scope=others")
        #expect(request.header("Authorization")?.contains(Fixtures.accessMarker) == true, "the access token authenticates the logout")
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() != nil, "this device stays signed in")
        #expect(try await vault.currentSession() != nil)
        let audit = try await vault.auditEvents(limit: 5)
        #expect(audit.contains { $0.kind == .serverSignOut && $0.reason == "others:ended" })
        await vault.close()
    }

    @Test func signOutOfflineStillClearsTheVaultAndAGoneSessionIsNotAFailure() async throws {
        try await storeSession()
        server.enqueue(.drop)
        let offline = try await manager().signOut(scope: .local)
        guard case .failed = offline.server else { Issue.record("an unreachable server is a failure: \(offline)"); return }
        let vault = try fixture.open()
        #expect(try await vault.currentSession() == nil, "cleared first, whatever the server does")
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        server.enqueue(.json(status: 404, #"{"code":404,"msg":"session not found"}"#))
        #expect(try await manager().signOut(scope: .global).server == .alreadyEnded)
        #expect(try await manager().signOut().server == .noSession)
    }

    @Test func anOAuth2SignOutRevokesTheRefreshTokenAndHandsBackTheEndSessionURL() async throws {
        let vault = try fixture.open()
        try await vault.store(TokenResponse(json: Fixtures.oauthJSON()))
        await vault.close()
        server.enqueue(.json(status: 200, ""))
        let refresher = OAuth2Refresher(
            tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: "app-client",
            revocationEndpoint: server.baseURL.appendingPathComponent("revoke"),
            endSessionEndpoint: URL(string: "https://idp.example/logout"),
            postLogoutRedirectURI: URL(string: "app://signed-out"))
        let manager = ResumeManager(path: fixture.path, keyProvider: fixture.keys, refresher: refresher, clock: fixture.clock.function)
        let result = try await manager.signOut()
        #expect(result.server == .ended)
        let request = try #require(server.requests.first)
        #expect(request.path == "/revoke")
        #expect(request.bodyString.hasPrefix("token=\(Fixtures.refreshMarker)"))
        #expect(request.bodyString.contains("&token_type_hint=refresh_token&client_id=app-client"))
        let url = try #require(result.endSessionURL)
        // The sign-in's ID token rides along as the hint (OIDC RP-Initiated Logout).
        let idToken = try #require((try JSONSerialization.jsonObject(with: Fixtures.oauthJSON()) as? [String: Any])?["id_token"] as? String)
        #expect(url.absoluteString == "https://idp.example/logout?id_token_hint=\(idToken)&client_id=app-client&post_logout_redirect_uri=app://signed-out")
    }

    // MARK: Foreground auto-refresh

    @Test func autoRefreshRefreshesAheadOfExpiryRecoversAfterAFailureAndStops() async throws {
        let stored = try await storeSession()
        let clock = SteppedClock(fixture.clock)
        let manager = manager()
        await manager.startAutoRefresh(clock: clock)
        // Asleep until expiry minus the minimum TTL.
        let first = try #require(await clock.waitForSleeper())
        #expect(first == stored.accessExpiresAt?.addingTimeInterval(-ResumePolicy().minimumAccessTTL))
        #expect(server.requestCount == 0)
        // The network fails once; the loop retries after the backoff instead of giving up.
        server.enqueue(.json(status: 503, "down"))
        server.enqueue(.json(Self.refreshed("auto-1")))
        clock.advance(to: first)
        #expect(await server.waitForRequests(1))
        let retry = try #require(await clock.waitForSleeper())
        #expect(retry > first && retry < first.addingTimeInterval(1), "backoff, not the next expiry")
        clock.advance(to: retry)
        #expect(await server.waitForRequests(2))
        // Refreshed: asleep until the new token's turn, an hour on.
        let next = try #require(await clock.waitForSleeper(after: retry))
        #expect(next > retry.addingTimeInterval(3000))
        #expect(server.requestCount == 2)
        await manager.stopAutoRefresh()
        #expect(clock.pendingDeadlines.isEmpty, "no timer left running after stop")
        #expect(await manager.isAutoRefreshing == false)
        clock.advance(to: next.addingTimeInterval(10))
        #expect(server.requestCount == 2)
    }

    @Test func autoRefreshWaitsAtSignOutWithoutARequest() async throws {
        let stored = try await storeSession()
        let clock = SteppedClock(fixture.clock)
        let manager = manager()
        await manager.startAutoRefresh(clock: clock)
        let due = try #require(await clock.waitForSleeper())
        server.enqueue(.json(status: 204, ""))
        _ = try await manager.signOut()
        clock.advance(to: due.addingTimeInterval(1))
        // The loop wakes, finds no session and waits for the next sign-in; it never sends a
        // refresh.
        #expect(await manager.waitUntilAutoRefreshWaitsForWake())
        #expect(await manager.isAutoRefreshing)
        #expect(server.requests.allSatisfy { !$0.path.contains("grant_type=refresh_token") })
        #expect(stored.hasRefreshToken)
        await manager.stopAutoRefresh()
    }

}

/// An API's 401 for the access token alone, the refresher's own deadline, and GoTrue's parent
/// token rule after a crash.
@Suite("Session lifecycle: invalid_token, refresh deadline, parent token", .timeLimit(.minutes(2)))
struct SessionLifecycleEdgeTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager(timeout: TimeInterval = 5) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: timeout),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    func storeSession() async throws -> Session {
        let vault = try fixture.open()
        let session = try await vault.store(Fixtures.goTrue())
        await vault.close()
        return session
    }

    @Test(
        arguments: [
            (#"{"error":"invalid_token","error_description":"The access token expired"}"#, nil),
            (#"{"message":"Unauthorized"}"#, #"Bearer realm="api", error="invalid_token", error_description="expired""#)
        ] as [(String, String?)])
    func anInvalidAccessTokenLeadsToOneRefreshAndARetry(body: String, challenge: String?) async throws {
        let stored = try await storeSession()
        server.enqueue(.json(SessionLifecycleTests.refreshed("after-401")))
        let manager = manager()
        let sent = try #require(try await manager.vault.accessToken())
        let outcome = await manager.handleAPIFailure(status: 401, body: Data(body.utf8), wwwAuthenticate: challenge, sentToken: sent)
        guard case .home(let session) = outcome else { Issue.record("a live session refreshes: \(String(describing: outcome))"); return }
        #expect(session.id == stored.id && session.tokenVersion == 2, "retry the call with the refreshed token")
        #expect(server.requestCount == 1)
        // Only a failed refresh sends the user to login.
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant"}"#))
        let retried = try #require(try await manager.vault.accessToken())
        #expect(
            await manager.handleAPIFailure(status: 401, body: Data(body.utf8), wwwAuthenticate: challenge, sentToken: retried)
                == .login(reason: .refreshRejected, showExpiredMessage: true))
    }

    @Test func theRefresherGivesUpAtItsOwnDeadline() async throws {
        // A server that never answers: URLSession on Linux would wait 60 s whatever the timeout.
        _ = try await storeSession()
        fixture.clock.advance(by: 3600 + 1)
        server.enqueue(.hang)
        let started = ContinuousClock.now
        let outcome = await manager(timeout: 1).resume()
        let waited = started.duration(to: .now)
        guard case .offline = outcome else { Issue.record("no answer is offline: \(outcome)"); return }
        // The event, not a clock: when the manager answered, the request was still out, held
        // unanswered by the server with URLSession's end of the connection open. So the
        // refresher's own deadline ended the wait; URLSession's timeout closes the connection
        // before its error could reach the manager. (A bound on `waited` failed under
        // AddressSanitizer on a loaded machine: the 1 s timer waited 36-40 s for a thread.)
        #expect(await server.waitForRequests(1), "the refresh request reached the server")
        #expect(server.openHangingRequests == 1, "the request was still out when the manager gave up (waited \(waited))")
        #expect(try await fixture.open().refreshToken() != nil, "tokens kept")
    }

    @Test func afterACrashTheParentTokenBringsBackTheCurrentChild() async throws {
        // The app sent its refresh, GoTrue rotated and answered, and the app died before storing.
        // Within the reuse interval GoTrue answers the parent token with the current child.
        let stored = try await storeSession()
        do {
            let vault = try fixture.open()
            try await vault.markRefreshPending(sessionID: stored.id, expectedVersion: stored.tokenVersion)
            await vault.close()
        }
        fixture.clock.advance(by: 3600 + 1)
        server.enqueue(.json(SessionLifecycleTests.refreshed("current-child")))
        guard case .home(let session) = await manager().resume() else { Issue.record("expected home with the child"); return }
        #expect(session.tokenVersion == 2)
        let token = try #require(try await fixture.open().refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "current-child")
    }
}
