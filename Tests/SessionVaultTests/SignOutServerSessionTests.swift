import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A sign-out reports `.ended` or `.alreadyEnded` only when the server no longer holds a session
/// for the tokens the vault held, whatever the access token's age and whatever refresh was in
/// flight. Real vault files, a real HTTP server on 127.0.0.1 whose request log each test reads;
/// every step waits for an event (a request at the server, a log line), never for a length of time.
@Suite("Sign-out ends the server session, or says that it may not have", .timeLimit(.minutes(2)))
struct SignOutServerSessionTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer
    let log = RecordingLogHandler.Store()

    init() throws { server = try ScriptedHTTPServer() }

    /// GoTrue's answer names the user; a plain RFC 6749 answer (`user: false`) names nobody.
    static func rotated(_ refresh: String, user: Bool = true) -> String {
        #"{"access_token":"access-\#(refresh)","token_type":"bearer","expires_in":3600,"refresh_token":"\#(refresh)""#
            + (user ? #","user":{"id":"user-123"}}"# : "}")
    }

    var logger: Logger { Logger(label: "signout-test") { _ in RecordingLogHandler(store: log) } }

    func goTrueManager() -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL.appendingPathComponent("auth/v1"), apiKey: "anon-key", timeout: 30),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function, logger: logger)
    }

    func oauthManager(waitLimit: TimeInterval = 10) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: OAuth2Refresher(
                tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: "app-client",
                revocationEndpoint: server.baseURL.appendingPathComponent("revoke"), timeout: 30),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function, logger: logger, refreshWaitLimit: waitLimit)
    }

    func storeSession(_ response: TokenResponse) async throws {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        try await vault.store(response)
        await vault.close()
    }

    // MARK: GoTrue's logout needs a live access token

    @Test("GoTrue: an expired access token is refreshed (under the refresh lock) before /logout, which then ends the session")
    func anExpiredAccessTokenIsRefreshedBeforeLogout() async throws {
        try await storeSession(Fixtures.goTrue())
        fixture.clock.advance(by: 3600 + 60)
        // What a GoTrue server answers: the refresh, then the logout authenticated by its access token.
        server.enqueue(.json(Self.rotated("for-logout")))
        server.enqueue(.json(status: 204, ""))
        let result = try await goTrueManager().signOut()
        let requests = server.requests
        #expect(
            requests.map(\.path) == ["/auth/v1/token?grant_type=refresh_token", "/auth/v1/logout?scope=local"],
            "the expired access token is never sent to /logout")
        #expect(requests.first?.bodyString.contains(Fixtures.refreshMarker) == true)
        #expect(requests.last?.header("Authorization") == "Bearer access-for-logout", "logout carries the fresh access token")
        #expect(result.server == .ended)
        #expect(!result.serverSessionMayOutlive)
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        #expect(try await vault.currentSession() == nil, "nothing of the refresh is stored")
        #expect(try await vault.refreshToken() == nil)
        await vault.close()
    }

    @Test("GoTrue: /logout answering 401 \"JWT expired\" (a device clock that runs late) is not an ended session: refresh once, log out again")
    func aLogoutRefusedForAnExpiredJWTRefreshesAndRetriesOnce() async throws {
        try await storeSession(Fixtures.goTrue())
        server.enqueue(
            .json(
                status: 401,
                #"{"code":401,"error_code":"bad_jwt","msg":"invalid JWT: unable to parse or verify signature, token has invalid claims: token is expired"}"#))
        server.enqueue(.json(Self.rotated("after-refusal")))
        server.enqueue(.json(status: 204, ""))
        let result = try await goTrueManager().signOut()
        #expect(server.requests.map(\.path) == ["/auth/v1/logout?scope=local", "/auth/v1/token?grant_type=refresh_token", "/auth/v1/logout?scope=local"])
        #expect(server.requests.last?.header("Authorization") == "Bearer access-after-refusal")
        #expect(result.server == .ended)
    }

    @Test("GoTrue: an access token refused twice is reported as refused, never as an ended session")
    func anAccessTokenRefusedTwiceIsNotAnEndedSession() async throws {
        try await storeSession(Fixtures.goTrue())
        server.enqueue(.json(status: 401, #"{"message":"JWT expired"}"#))
        server.enqueue(.json(Self.rotated("still-refused")))
        server.enqueue(.json(status: 403, #"{"code":403,"error_code":"bad_jwt","msg":"invalid JWT"}"#))
        let result = try await goTrueManager().signOut()
        #expect(server.requestCount == 3, "one refresh, one retry, no loop")
        #expect(result.server == .accessTokenRejected)
        #expect(result.serverSessionMayOutlive)
    }

    @Test("GoTrue: a refresh refused with invalid_grant while signing out means the server holds no session for it")
    func aRefusedRefreshDuringSignOutIsAnAlreadyEndedSession() async throws {
        try await storeSession(Fixtures.goTrue())
        fixture.clock.advance(by: 3600 + 60)
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Refresh Token Not Found"}"#))
        let result = try await goTrueManager().signOut()
        #expect(server.requestCount == 1)
        #expect(result.server == .alreadyEnded)
        #expect(!result.serverSessionMayOutlive)
    }

    @Test("GoTrue: 403/404 session_not_found is an already ended session")
    func sessionNotFoundIsAlreadyEnded() async throws {
        try await storeSession(Fixtures.goTrue())
        server.enqueue(.json(status: 403, #"{"code":403,"error_code":"session_not_found","msg":"Session from session_id claim in JWT does not exist"}"#))
        #expect(try await goTrueManager().signOut().server == .alreadyEnded)
        #expect(server.requestCount == 1)
    }

    // MARK: A refresh in flight when the user signs out

    @Test("a refresh in flight in this process: sign-out waits for it and revokes the token it brought, not the spent one")
    func signOutDuringARefreshRevokesTheRotatedToken() async throws {
        try await storeSession(TokenResponse(json: Fixtures.oauthJSON()))
        fixture.clock.advance(by: 3600 + 60)
        let gate = ResponseGate()
        server.enqueue(ScriptedResponse.json(Self.rotated("rotated-in-flight", user: false)).held(by: gate))
        server.enqueue(.json(status: 200, ""))
        let manager = oauthManager()
        let refresh = Task { await manager.refreshNow() }
        #expect(await server.waitForRequests(1), "the refresh reached the server")
        let signOut = Task { try await manager.signOut() }
        // Either the sign-out went ahead and told the server (the old behaviour), or it waits
        // for the refresh lock (and said so): only then does the server answer the refresh.
        #expect(await waitUntil { server.requestCount >= 2 || log.all.contains { $0.contains("sign-out waits for a refresh") } })
        gate.open()
        _ = await refresh.value
        let result = try await signOut.value
        #expect(await server.waitForRequests(2))
        let revocations = server.requests.filter { $0.path == "/revoke" }
        #expect(revocations.count == 1)
        #expect(revocations.first?.bodyString.hasPrefix("token=rotated-in-flight&") == true, "the token the server holds now is revoked")
        #expect(result.server == .ended)
        #expect(!result.refreshWasInFlight)
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        #expect(try await vault.currentSession() == nil)
        await vault.close()
    }

    @Test("a holder of the refresh lock past the wait: sign-out clears, says so, and the holder revokes the rotation it gets")
    func aRotationArrivingAfterSignOutIsRevokedByItsHolder() async throws {
        try await storeSession(TokenResponse(json: Fixtures.oauthJSON()))
        fixture.clock.advance(by: 3600 + 60)
        let gate = ResponseGate()
        server.enqueue(ScriptedResponse.json(Self.rotated("rotated-late", user: false)).held(by: gate))
        server.enqueue(.json(status: 200, ""))
        server.enqueue(.json(status: 200, ""))
        // Two managers: two holders of the flock, as two processes are.
        let holder = oauthManager()
        let refresh = Task { await holder.refreshNow() }
        #expect(await server.waitForRequests(1))
        let result = try await oauthManager(waitLimit: 0.2).signOut()
        #expect(result.refreshWasInFlight, "the sign-out says a refresh elsewhere may bring tokens it never saw")
        #expect(result.serverSessionMayOutlive)
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        #expect(try await vault.currentSession() == nil, "cleared locally without waiting longer")
        await vault.close()
        gate.open()
        let outcome = await refresh.value
        #expect(outcome == .login(reason: .signedOut, showExpiredMessage: false))
        #expect(await server.waitForRequests(3, timeout: 10), "the holder revoked what it received")
        let revocations = server.requests.filter { $0.path == "/revoke" }
        #expect(revocations.count == 2)
        #expect(revocations.last?.bodyString.hasPrefix("token=rotated-late&") == true)
    }

    /// Polls `condition` (a request count, a log line: events, not a length of time) for at most 30 s.
    func waitUntil(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while !condition() && Date() < deadline { try? await Task.sleep(nanoseconds: 5_000_000) }
        return condition()
    }
}
