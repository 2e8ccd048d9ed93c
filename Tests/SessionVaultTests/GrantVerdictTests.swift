import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// Only the authorization server's own verdict on the grant ends a session. An answer from
/// whatever stands in front of it (a CDN's or WAF's HTML page, a gateway's 401), a refusal of the
/// DPoP proof, or a refusal that names no error kept the session before the library's end:
/// `if status == 401 || status == 403 { return .authRequired }` cleared the vault while the
/// server's refresh token stayed valid, and Glewlwyd's empty 400 for a dead refresh token read as
/// "offline" for as long as the refresh token was assumed to live.
@Suite("Only the server's verdict on the grant ends a session", .timeLimit(.minutes(2)))
struct GrantVerdictTests {
    static var cdnPage: String { "<html><head><title>Attention required</title></head><body>Session expired? Checking your browser.</body></html>" }

    @Test(arguments: [
        // What stands in front of the server: never a verdict, whatever words the page holds.
        (403, cdnPage, nil as String?, RefreshError.serverUnavailable(status: 403)),
        (401, cdnPage, nil, .serverUnavailable(status: 401)),
        (401, "Unauthorized", nil, .serverUnavailable(status: 401)),
        // About the proof, at any status, in the body or the challenge.
        (401, #"{"error":"invalid_dpop_proof"}"#, nil, .proofRejected(error: "invalid_dpop_proof")),
        (403, #"{"error":"invalid_dpop_proof","error_description":"iat out of range"}"#, nil, .proofRejected(error: "invalid_dpop_proof")),
        (401, "", #"DPoP algs="ES256", error="invalid_dpop_proof""#, .proofRejected(error: "invalid_dpop_proof")),
        (400, #"{"error":"use_dpop_nonce"}"#, nil, .proofRejected(error: "use_dpop_nonce")),
        // Refusals that name nothing the library knows: typed, tokens kept.
        (400, "", nil, .refusedUnexplained(status: 400, error: nil)),
        (400, #"{"error":"invalid_request","error_description":"Refresh token inactive"}"#, nil, .refusedUnexplained(status: 400, error: "invalid_request")),
        (401, #"{"error":"something_else"}"#, nil, .refusedUnexplained(status: 401, error: "something_else")),
        // Another JSON shape or another status: something failing, never a refusal.
        (403, "{}", nil, .serverUnavailable(status: 403)),
        (403, #"{"message":"Forbidden"}"#, nil, .serverUnavailable(status: 403)),
        (404, #"{"detail":"Not Found"}"#, nil, .serverUnavailable(status: 404)),
        (408, "", nil, .serverUnavailable(status: 408)),
        // The server's own verdict, at whatever status it comes.
        (400, #"{"error":"invalid_grant"}"#, nil, .invalidGrant),
        (401, #"{"error":"invalid_grant","error_description":"Token revoked"}"#, nil, .invalidGrant),
        (400, #"{"code":400,"error_code":"refresh_token_already_used","msg":"Invalid Refresh Token: Already Used"}"#, nil, .invalidGrant),
        (403, #"{"success":false,"error":{"code":"SESSION_EXPIRED","message":"Session expired"}}"#, nil, .sessionExpired),
        (401, #"{"success":false,"error":{"code":"AUTH_REQUIRED","message":"Sign in"}}"#, nil, .authRequired),
        (400, #"{"error":"invalid_client"}"#, nil, .clientRejected(error: "invalid_client"))
    ])
    func classifies(status: Int, body: String, challenge: String?, expected: RefreshError) {
        let got = AuthErrorBody.classifyRefreshFailure(status: status, body: Data(body.utf8), retryAfterHeader: nil, wwwAuthenticate: challenge)
        #expect(got == expected, "\(status) \(body.prefix(40)): \(got)")
        #expect(got.endsSession == [.invalidGrant, .sessionExpired, .authRequired].contains(expected))
    }

    /// Glewlwyd refuses a used or wrong authorization code with 403 `invalid_code`.
    @Test func aRefusedCodeNamedAsSuchIsCodeRejected() {
        let refused = AuthErrorBody.classifySignInFailure(
            status: 403, body: Data(#"{"error":"invalid_code"}"#.utf8), retryAfterHeader: nil, codeExchange: true)
        #expect(refused == .codeRejected)
    }

    // MARK: Through the manager, against a real HTTP server

    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager(policy: ResumePolicy = ResumeManagerTests.noIdle) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            policy: policy, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    /// A stored session whose access token is dead: the next call refreshes.
    func expiredSession() async throws -> Session {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        let stored = try await vault.store(Fixtures.goTrue())
        await vault.close()
        fixture.clock.advance(by: 2 * 3600)
        return stored
    }

    @Test func aProxyPageKeepsTheSessionAndSaysOffline() async throws {
        let stored = try await expiredSession()
        server.enqueue(ScriptedResponse(status: 403, headers: [("Content-Type", "text/html")], body: Data(Self.cdnPage.utf8)))
        let manager = manager()
        let outcome = await manager.resume()
        guard case .offline(let session, _) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(session.id == stored.id)
        #expect(try await manager.vault.currentSession()?.id == stored.id, "the session is still stored")
    }

    @Test func aProofRefusedWith401KeepsTheSession() async throws {
        let stored = try await expiredSession()
        server.enqueue(
            .json(status: 401, #"{"error":"invalid_dpop_proof"}"#, headers: [("WWW-Authenticate", #"DPoP error="invalid_dpop_proof""#)]))
        let manager = manager()
        let outcome = await manager.resume()
        if case .login = outcome { Issue.record("a refused proof ended the session: \(outcome)") }
        #expect(try await manager.vault.currentSession()?.id == stored.id)
    }

    /// Glewlwyd's answer to every refused refresh: 400 with an empty body. Not offline (the
    /// server answered), not the end (it said nothing about the grant): `renewalRefused`, with
    /// the first refusal's time in the vault for every process; a later success clears it.
    @Test func anEmptyRefusalIsRecordedForEveryProcessAndASuccessClearsIt() async throws {
        let stored = try await expiredSession()
        let firstAt = fixture.clock.now
        server.enqueue(ScriptedResponse(status: 400))
        let outcome = await manager().resume()
        guard case .renewalRefused(let session, let since, _) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(session.id == stored.id)
        #expect(abs(since.timeIntervalSince(firstAt)) < 0.01)
        // Another process (its own manager and connection) sees the same first time.
        fixture.clock.advance(by: 600)
        server.enqueue(ScriptedResponse(status: 400))
        let other = await manager().freshAccessToken()
        guard case .renewalRefused(let otherSince, _) = other else { Issue.record("got \(other)"); return }
        #expect(abs(otherSince.timeIntervalSince(firstAt)) < 0.01, "the first refusal's time, not this one's")
        // The server answers again: the record goes.
        server.enqueue(.json(PeerBugLaunchTests.rotated("renewed")))
        guard case .home(let renewed) = await manager().resume() else { Issue.record("not home after the server answered"); return }
        #expect(renewed.refreshRefusedSince == nil)
        #expect(server.requestCount == 3)
    }

    /// One refusal never ends a session; the same refusal past `refusalLimit` after the first does.
    /// A clock moved back is no time passed.
    @Test func refusalsEndTheSessionOnlyPastTheLimit() async throws {
        _ = try await expiredSession()
        let manager = manager()
        server.enqueue(.json(status: 400, #"{"error":"invalid_request","error_description":"Refresh token inactive"}"#))
        guard case .renewalRefused = await manager.resume() else { Issue.record("first refusal"); return }
        // Moved back two days: no time passed, however it looks.
        fixture.clock.advance(by: -2 * 86_400)
        server.enqueue(ScriptedResponse(status: 400))
        let back = await manager.refreshNow()
        guard case .renewalRefused = back else { Issue.record("a clock moved back ended the session: \(back)"); return }
        // Forward past the first refusal's day: the next refusal ends it.
        fixture.clock.advance(by: 3 * 86_400 + 1)
        server.enqueue(ScriptedResponse(status: 400))
        let last = await manager.refreshNow()
        guard case .login(let reason, _) = last else { Issue.record("still \(last) a day after the first refusal"); return }
        #expect(reason == .refreshRejected)
        #expect(server.requestCount == 3)
    }
}
