import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The authorization-code flow with PKCE through the library, against django-oauth-toolkit (OIDC
/// on) driven as a browser would, with a loopback redirect URI served by the test (the app's
/// listener); and the ID token checks against a token endpoint that answers crafted ID tokens.
@Suite("Authorization code + PKCE: real server, typed refusals, ID token checks", .timeLimit(.minutes(3)))
struct AuthorizationCodeTests {
    let fixture = TestVault()

    /// The app's loopback listener: records the redirect and tells the user to go back.
    static func listener() throws -> ScriptedHTTPServer {
        let server = try ScriptedHTTPServer()
        server.defaultResponse = ScriptedResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Data("Signed in. Return to the app.".utf8))
        return server
    }

    static func redirect(_ listener: ScriptedHTTPServer) throws -> URL {
        let path = try #require(listener.requests.last?.path)
        return try #require(URL(string: listener.baseURL.absoluteString + path))
    }

    /// A manager on the real clock: the server's ID tokens expire in real time.
    func manager(_ server: OAuthTestServer, clock: ManualClock) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: OAuth2Refresher(tokenEndpoint: server.tokenEndpoint, clientID: server.pkceClientID), clock: clock.function)
    }

    func flow(_ server: OAuthTestServer, listener: ScriptedHTTPServer, scope: String = "openid read") -> AuthorizationCodeFlow {
        AuthorizationCodeFlow(
            authorizationEndpoint: server.authorizationEndpoint, tokenEndpoint: server.tokenEndpoint,
            clientID: server.pkceClientID, redirectURI: listener.baseURL.appendingPathComponent("callback"),
            scope: scope, issuer: server.issuer, timeout: 10)
    }

    /// The sign-in's error, nil when it stored a session. (Untyped closures: a typed-throws
    /// async closure here crashes the Swift 6.3.1 compiler.)
    func signInError(_ manager: ResumeManager, _ request: AuthorizationRequest, _ redirect: URL) async -> SignInError? {
        do {
            _ = try await manager.signIn(completing: request, redirect: redirect)
            return nil
        } catch {
            return error
        }
    }

    /// The code exchange's error, nil when the server gave tokens.
    func exchangeError(_ flow: AuthorizationCodeFlow, code: String, _ request: AuthorizationRequest) async -> SignInError? {
        do {
            _ = try await flow.exchange(code: code, for: request, now: Date())
            return nil
        } catch {
            return error
        }
    }

    @Test("the browser logs in and approves; the code is exchanged with the verifier and the session stored")
    func fullFlowAgainstDjangoOAuthToolkit() async throws {
        try await OAuthTestServer.with { server in
            let listener = try Self.listener()
            let clock = ManualClock(Date())
            let manager = manager(server, clock: clock)
            var events = await manager.sessionEvents().makeAsyncIterator()
            #expect(await events.next() == .initialSession(nil))
            let flow = flow(server, listener: listener)
            let request = try flow.authorizationRequest()
            let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")
            #expect(query.first { $0.name == "nonce" }?.value != nil)

            let browser = TestBrowser(username: server.username, password: server.password)
            // Not logged in: the server sends the browser to its login page first.
            let landed = try await browser.openAnonymously(request.url)
            #expect(landed?.path.hasPrefix("/accounts/login") == true, "landed on \(landed?.path ?? "nothing")")
            #expect(try await browser.authorize(request.url, approve: true) == 200)
            #expect(listener.requestCount == 1)
            let redirect = try Self.redirect(listener)

            let session = try await manager.signIn(completing: request, redirect: redirect)
            // Identity from the token endpoint's answer: the ID token's `sub` (the user's id).
            #expect(session.identity.subject == "1")
            #expect(session.identity.issuer == server.issuer)
            #expect(await events.next() == .signedIn(session))
            guard case .home(let home) = await manager.resume() else { Issue.record("a launch after sign-in goes home"); return }
            #expect(home.id == session.id)
            #expect(try await server.requestCounts()["authorization_code"] == 1)
            // The stored refresh token works: a refresh through the manager rotates it.
            guard case .home(let refreshed) = await manager.refreshNow() else { Issue.record("the stored session refreshes"); return }
            #expect(refreshed.tokenVersion == 2)

            // The same request again: refused here, nothing sent.
            #expect(
                await signInError(manager, request, redirect)
                    == .authorizationAlreadyUsed)
            // The code replayed at the server (as an attacker holding it would): refused there.
            let code = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            let replay = try flow.authorizationRequest()
            #expect(await exchangeError(flow, code: code, replay) == .codeRejected)
            #expect(try await manager.vault.currentSession()?.id == refreshed.id)
            #expect(try await server.requestCounts()["authorization_code"] == 2)
        }
    }

    @Test("a code is bound to its verifier: another request's verifier is refused (PKCE enforced by the server)")
    func aCodeNeedsItsOwnVerifier() async throws {
        try await OAuthTestServer.with { server in
            let listener = try Self.listener()
            let flow = flow(server, listener: listener, scope: "read")
            let request = try flow.authorizationRequest()
            #expect(try await TestBrowser(username: server.username, password: server.password).authorize(request.url, approve: true) == 200)
            let code = try #require(
                URLComponents(url: try Self.redirect(listener), resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            let other = try flow.authorizationRequest()
            #expect(await exchangeError(flow, code: code, other) == .codeRejected)
        }
    }

    @Test("the user cancels: access_denied, nothing stored, nothing sent to the token endpoint")
    func accessDenied() async throws {
        try await OAuthTestServer.with { server in
            let listener = try Self.listener()
            let manager = manager(server, clock: ManualClock(Date()))
            let request = try flow(server, listener: listener).authorizationRequest()
            #expect(try await TestBrowser(username: server.username, password: server.password).authorize(request.url, approve: false) == 200)
            let redirect = try Self.redirect(listener)
            #expect(
                await signInError(manager, request, redirect)
                    == .authorizationDenied(error: "access_denied"))
            #expect(try await manager.vault.currentSession() == nil)
            #expect(try await server.requestCounts()["authorization_code"] == nil)
        }
    }

    @Test("a redirect with a wrong or missing state stores nothing and leaves the request usable for the real one")
    func wrongState() async throws {
        try await OAuthTestServer.with { server in
            let listener = try Self.listener()
            let manager = manager(server, clock: ManualClock(Date()))
            let request = try flow(server, listener: listener).authorizationRequest()
            #expect(try await TestBrowser(username: server.username, password: server.password).authorize(request.url, approve: true) == 200)
            let redirect = try Self.redirect(listener)
            var forged = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false))
            forged.queryItems = forged.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "forged") : $0 }
            let forgedURL = try #require(forged.url)
            #expect(
                await signInError(manager, request, forgedURL)
                    == .stateMismatch)
            forged.queryItems = forged.queryItems?.filter { $0.name != "state" }
            let stateless = try #require(forged.url)
            #expect(
                await signInError(manager, request, stateless)
                    == .stateMismatch)
            #expect(try await manager.vault.currentSession() == nil)
            #expect(try await server.requestCounts()["authorization_code"] == nil)
            let session = try await manager.signIn(completing: request, redirect: redirect)
            #expect(try await manager.vault.currentSession()?.id == session.id)
        }
    }
}
