import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// GoTrue's password sign-in through the library, against a GoTrue-shaped endpoint on 127.0.0.1
/// with seed 001's bodies and its login limit (5 attempts per 5 minutes, on the test's clock), on
/// real vault files.
@Suite("GoTrue password sign-in: stored in one call, typed refusals, the login limit", .timeLimit(.minutes(3)))
struct GoTrueSignInTests {
    let fixture = TestVault()
    static let email = "analyst@example.org"
    static let password = "SecurePassword123!"

    func server() throws -> GoTrueSignInServer {
        let server = try GoTrueSignInServer(clock: fixture.clock)
        server.addUser(email: Self.email, password: Self.password, id: "user-1")
        server.addUser(email: "second@example.org", password: "another password", id: "user-2")
        return server
    }

    func manager(_ server: GoTrueSignInServer, apiKey: String = GoTrueSignInServer.apiKey) -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        return ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: apiKey, timeout: 5),
            policy: policy, clock: fixture.clock.function)
    }

    func signInError(_ manager: ResumeManager, email: String = email, password: String) async -> SignInError? {
        do {
            _ = try await manager.signIn(email: email, password: password)
            return nil
        } catch {
            return error
        }
    }

    func storedRefreshToken(_ manager: ResumeManager) async throws -> String? {
        try await manager.vault.refreshToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test("a sign-in stores the session in one call, is the signedIn event, and the next launch goes home")
    func signInStoresTheSession() async throws {
        let server = try server()
        let manager = manager(server)
        var events = await manager.sessionEvents().makeAsyncIterator()
        #expect(await events.next() == .initialSession(nil))

        let session = try await manager.signIn(email: Self.email, password: Self.password, biometricEnabled: false)
        #expect(session.identity.subject == "user-1")
        #expect(session.identity.email == Self.email)
        #expect(try await storedRefreshToken(manager) == GoTrueSignInServer.refreshToken(1))
        #expect(await events.next() == .signedIn(session))
        guard case .home(let home) = await manager.resume() else { Issue.record("a launch after sign-in goes home"); return }
        #expect(home.id == session.id)

        let request = try #require(server.signInRequests.first)
        #expect(request.header("apikey") == GoTrueSignInServer.apiKey)
        #expect(request.header("Content-Type") == "application/json")
        let sent = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: String])
        #expect(sent == ["email": Self.email, "password": Self.password])
    }

    @Test("wrong credentials: invalidCredentials, and the current session stays")
    func wrongPasswordKeepsTheCurrentSession() async throws {
        let server = try server()
        let manager = manager(server)
        let first = try await manager.signIn(email: Self.email, password: Self.password)
        #expect(await signInError(manager, password: "wrong") == .invalidCredentials)
        #expect(await signInError(manager, email: "nobody@example.org", password: Self.password) == .invalidCredentials)
        #expect(try await manager.vault.currentSession()?.id == first.id)
        #expect(try await storedRefreshToken(manager) == GoTrueSignInServer.refreshToken(1))
    }

    @Test("the login limit: the sixth attempt in 5 minutes is rateLimited with the seconds the text states, and passes once they did")
    func theLoginLimit() async throws {
        let server = try server()
        let manager = manager(server)
        for _ in 0..<5 { #expect(await signInError(manager, password: "wrong") == .invalidCredentials) }
        // Even the right password is refused now: the limit counts attempts, not failures.
        #expect(await signInError(manager, password: Self.password) == .rateLimited(retryAfter: 300))
        fixture.clock.advance(by: 120)
        #expect(await signInError(manager, password: Self.password) == .rateLimited(retryAfter: 180))
        #expect(try await manager.vault.currentSession() == nil)
        fixture.clock.advance(by: 180)
        let session = try await manager.signIn(email: Self.email, password: Self.password)
        #expect(session.identity.subject == "user-1")
        #expect(server.signInRequests.count == 8)
    }

    @Test(
        "429 bodies and headers: retry_after, Retry-After, the seed's text, nothing (60 s), a day at most",
        arguments: [
            (#"{"error":"rate_limit_exceeded","error_description":"Too many requests. Retry after 60 seconds.","retry_after":42}"#, nil, 42.0),
            (#"{"error":"over_request_rate_limit","msg":"Request rate limit reached"}"#, "17", 17.0),
            (#"{"error":"rate_limit_exceeded","error_description":"Too many login attempts. Please try again in 60 seconds."}"#, nil, 60.0),
            ("not json at all", nil, 60.0),
            (#"{"error":"rate_limit_exceeded","retry_after":1e300}"#, nil, 86_400.0)
        ] as [(String, String?, Double)])
    func rateLimitAnswers(body: String, header: String?, expected: Double) async throws {
        let server = try server()
        server.script(.json(status: 429, body, headers: header.map { [("Retry-After", $0)] } ?? []))
        let manager = manager(server)
        #expect(await signInError(manager, password: Self.password) == .rateLimited(retryAfter: expected))
        #expect(try await manager.vault.currentSession() == nil)
    }

    @Test("a server error, a wrong apikey, no server: typed, nothing stored")
    func serverAndNetworkFailures() async throws {
        let server = try server()
        server.script(.json(status: 500, #"{"error":"server_error"}"#))
        #expect(await signInError(manager(server), password: Self.password) == .serverError(status: 500))
        #expect(await signInError(manager(server, apiKey: "wrong-key"), password: Self.password) == .clientRejected(error: "unauthorized"))
        server.script(.json(status: 400, #"{"code":400,"error_code":"email_not_confirmed","msg":"Email not confirmed"}"#))
        #expect(await signInError(manager(server), password: Self.password) == .rejected(error: "email_not_confirmed"))
        server.script(.drop)
        guard case .network = await signInError(manager(server), password: Self.password) else {
            Issue.record("a dropped connection is a network failure"); return
        }
        server.http.stop()
        guard case .network = await signInError(manager(server), password: Self.password) else {
            Issue.record("no server is a network failure"); return
        }
        #expect(try await manager(server).vault.currentSession() == nil)
    }

    @Test(
        "a response the vault refuses (out-of-range numbers, no user) stores nothing",
        arguments: [
            #"{"access_token":"a","token_type":"bearer","expires_in":99999999999,"refresh_token":"r","user":{"id":"user-1"}}"#,
            #"{"access_token":"a","token_type":"bearer","expires_in":3600,"expires_at":-5,"refresh_token":"r","user":{"id":"user-1"}}"#,
            #"{"access_token":"a","token_type":"bearer","expires_in":3600,"refresh_token":"r"}"#,
            #"{"token_type":"bearer"}"#
        ])
    func refusedResponses(body: String) async throws {
        let server = try server()
        server.script(.json(body))
        let manager = manager(server)
        guard case .invalidResponse = await signInError(manager, password: Self.password) else {
            Issue.record("a body the vault refuses is invalidResponse"); return
        }
        #expect(try await manager.vault.currentSession() == nil)
    }

    @Test("a second sign-in in the same process waits for the first, then replaces it")
    func sign_insTakeTurns() async throws {
        let server = try server()
        let manager = manager(server)
        let gate = server.holdNext()
        let first = Task { try await manager.signIn(email: Self.email, password: Self.password) }
        #expect(await server.http.waitForRequests(1))
        let second = Task { try await manager.signIn(email: "second@example.org", password: "another password") }
        // The event: the second sign-in is queued behind the first (polled), and sent nothing.
        let end = Date().addingTimeInterval(30)
        while manager.signInTurn.waitingCount < 1 && Date() < end { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(manager.signInTurn.waitingCount == 1)
        #expect(server.signInRequests.count == 1)
        gate.open()
        let one = try await first.value
        let two = try await second.value
        #expect(one.identity.subject == "user-1" && two.identity.subject == "user-2")
        #expect(server.signInRequests.count == 2)
        #expect(try await manager.vault.currentSession()?.id == two.id)
        #expect(try await storedRefreshToken(manager) == GoTrueSignInServer.refreshToken(2))
    }

    @Test("a late sign-in never overwrites a session stored while it was under way")
    func aLateSignInIsSuperseded() async throws {
        let server = try server()
        let manager = manager(server)
        let gate = server.holdNext()
        let late = Task { () async -> SignInError? in await signInError(manager, password: Self.password) }
        #expect(await server.http.waitForRequests(1))
        // Meanwhile another sign-in (another process, a native side) stores its session.
        let newer = try await manager.vault.store(Fixtures.goTrue())
        gate.open()
        #expect(await late.value == .superseded)
        #expect(try await manager.vault.currentSession()?.id == newer.id)
        #expect(try await storedRefreshToken(manager) == "\(Fixtures.refreshMarker)-1")
    }

    @Test("a late sign-in never overwrites a session another process stored while it was under way")
    func aLateSignInIsSupersededAcrossProcesses() async throws {
        let server = try server()
        let manager = manager(server)
        _ = try await manager.vault  // created here, so the other process only stores
        let gate = server.holdNext()
        let late = Task { () async -> SignInError? in await signInError(manager, password: Self.password) }
        #expect(await server.http.waitForRequests(1))
        let scratch = TemporaryDirectory("sessionvault-host")
        let other = try TestHostProcess(["store", fixture.path, fixture.keyPath, "other-process-refresh"], scratch: scratch)
        #expect(await other.finish(timeout: 60) == 0)
        gate.open()
        #expect(await late.value == .superseded)
        #expect(try await manager.vault.currentSession()?.identity.subject == "host-user")
        #expect(try await storedRefreshToken(manager) == "other-process-refresh")
    }

    @Test("a sign-in sets a waiting auto-refresh loop going: it sleeps until the new token is due")
    func aSignInWakesTheAutoRefreshLoop() async throws {
        let server = try server()
        server.expiresIn = 600
        let manager = manager(server)
        let clock = SteppedClock(fixture.clock)
        await manager.startAutoRefresh(clock: clock)
        #expect(await manager.waitUntilAutoRefreshWaitsForWake())
        let session = try await manager.signIn(email: Self.email, password: Self.password)
        let due = try #require(await clock.waitForSleeper(after: fixture.clock.now))
        #expect(due == session.issuedAt.addingTimeInterval(450))
        await manager.stopAutoRefresh()
    }
}

/// After the sign-in, seed 001's opt-in ("Enable Biometric? → Yes → Store Token Securely") through
/// the manager's gate.
@Suite("After sign-in: the biometric opt-in", .timeLimit(.minutes(2)))
struct SignInBiometricOptInTests {
    let fixture = TestVault()

    @Test("yes and a passed prompt turn biometric unlock on with the enrolment; a cancelled prompt changes nothing")
    func optIn() async throws {
        let server = try GoTrueSignInServer(clock: fixture.clock)
        server.addUser(email: "a@example.org", password: "pw", id: "user-1")
        let gate = ScriptedBiometricGate(result: .cancelled, domainState: [7, 7, 7])
        let manager = ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: GoTrueSignInServer.apiKey, timeout: 5),
            biometrics: gate, clock: fixture.clock.function)
        await #expect(throws: VaultError.noSession) { try await manager.enableBiometricUnlock(reason: "Unlock with Face ID") }
        let session = try await manager.signIn(email: "a@example.org", password: "pw", biometricEnabled: false)
        #expect(!session.biometricEnabled)
        #expect(try await manager.enableBiometricUnlock(reason: "Unlock with Face ID") == .cancelled)
        #expect(try await manager.vault.currentSession()?.biometricEnabled == false)
        gate.set(result: .success)
        #expect(try await manager.enableBiometricUnlock(reason: "Unlock with Face ID") == .success)
        #expect(try await manager.vault.currentSession()?.biometricEnabled == true)
        #expect(gate.promptCount == 2)
        // The enrolment was recorded: a changed one ends the session at the next idle unlock.
        gate.set(domainState: [8, 8, 8])
        fixture.clock.advance(by: 31 * 60)
        guard case .login(.biometryChanged, _) = await manager.resume() else { Issue.record("a changed enrolment ends the session"); return }
    }
}
