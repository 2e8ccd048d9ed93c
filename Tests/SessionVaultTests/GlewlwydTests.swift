import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// Glewlwyd 2.7.5 from Debian's package, an OpenID provider we did not write, on 127.0.0.1:
/// PKCE required, rolling one-use refresh tokens, 60 s access tokens, DPoP with mandatory nonces,
/// revocation that a public client must authenticate with the session's access token. What our
/// own test servers never showed: every refused refresh is 400 with an empty body, a refused
/// proof is 403, a refused code is 403 `invalid_code`.
@Suite("Glewlwyd: an OpenID provider we did not write", .serialized, .timeLimit(.minutes(3)))
struct GlewlwydTests {
    let fixture = TestVault()

    @Test func bearerSignInRefreshAndUserinfo() async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let clock = client.clock
            let manager = try client.manager()
            let session = try await client.signIn(manager)
            #expect(session.identity.subject == server.info.subject)
            #expect(session.identity.issuer == server.info.issuer)
            // The access token lives 60 s: past it, the next call refreshes, and the rotated
            // tokens are stored (a new manager on the same files, as a new launch, sees them).
            clock.advance(by: 61)
            guard case .token(_, let refreshed) = await manager.freshAccessToken() else {
                Issue.record("no token after expiry: \(await server.logTail())")
                return
            }
            #expect(refreshed.tokenVersion == session.tokenVersion + 1)
            guard case .home(let resumed) = await (try client.manager()).resume() else { Issue.record("a new launch is not home"); return }
            #expect(resumed.tokenVersion == refreshed.tokenVersion)
            let (status, subject) = try await client.userinfo(manager)
            #expect(status == 200 && subject == server.info.subject)
            #expect(try await server.refreshTokens().filter { $0.enabled == 1 }.count == 1, "the spent refresh token was disabled")
        }
    }

    /// Glewlwyd answers a refresh token spent elsewhere with 400 and an empty body: a refusal
    /// without a verdict, not "offline" (it was, for as long as the refresh token was assumed to
    /// live), and not the end on its own.
    @Test func aRefreshTokenSpentElsewhereIsARefusedRenewal() async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let clock = client.clock
            let manager = try client.manager()
            _ = try await client.signIn(manager)
            // Someone else spends the stored refresh token (a copy of the vault, a second runtime).
            let token = try #require(try await manager.vault.refreshToken())
            #expect(try await client.spendElsewhere(token) == 200)
            let outcome = await manager.refreshNow()
            guard case .renewalRefused(_, let since, _) = outcome else { Issue.record("got \(outcome)"); return }
            #expect(abs(since.timeIntervalSince(clock.now)) < 60)
            #expect(try await manager.vault.currentSession() != nil, "tokens kept")
        }
    }

    /// DPoP with mandatory nonces: the code exchange and the refresh each take Glewlwyd's nonce
    /// once; userinfo takes its own challenge; the session's `jkt` is the one Glewlwyd bound.
    /// A proof dated 90 s off (the device clock moved after the offset was measured) is refused
    /// with 403 and re-dated by the answer's `Date`: both ways, one retry, the session kept.
    @Test(arguments: [90.0, -90.0])
    func dpopSignInRefreshAndAProofRefusedForItsDate(skew: TimeInterval) async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let clock = client.clock
            let manager = try client.manager(dpop: true)
            let session = try await client.signIn(manager)
            #expect(session.tokenType.lowercased() == "dpop")
            let jkt = try #require(session.proofKeyThumbprint)
            #expect(try await server.refreshTokens().contains { $0.enabled == 1 && $0.jkt == jkt }, "Glewlwyd bound the refresh token to our key")
            let (status, subject) = try await client.userinfo(manager)
            #expect(status == 200 && subject == server.info.subject)
            clock.set(skew: skew)
            let outcome = await manager.refreshNow()
            guard case .home(let refreshed) = outcome else {
                Issue.record("a proof dated \(skew) s off: \(outcome); \(await server.logTail())")
                return
            }
            #expect(refreshed.tokenVersion == session.tokenVersion + 1)
        }
    }

    /// Glewlwyd's revocation refuses a public client that sends only its `client_id` (401) and
    /// takes the session's access token as authentication: sign-out sends it once more,
    /// authenticated, and Glewlwyd holds no enabled refresh token afterwards.
    @Test func signOutLeavesNoEnabledRefreshToken() async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let manager = try client.manager()
            _ = try await client.signIn(manager)
            #expect(try await server.refreshTokens().contains { $0.enabled == 1 })
            let result = try await manager.signOut()
            #expect(result.server == .ended, "revocation: \(result.server)")
            #expect(try await server.refreshTokens().allSatisfy { $0.enabled == 0 }, "a refresh token still enabled")
        }
    }

    /// Glewlwyd's end-session acts only on `id_token_hint`: the ID token is kept, sealed, from the
    /// sign-in to the sign-out, put in the URL, and gone with the session. The URL ends alice's
    /// session at Glewlwyd; the result's description names the parameters, never the token.
    @Test func theEndSessionURLCarriesTheIDTokenAndEndsTheProvidersSession() async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let manager = try client.manager()
            _ = try await client.signIn(manager)
            let idToken = try #require(try await manager.vault.currentIDToken())
            let hint = idToken.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            let result = try await manager.signOut()
            let url = try #require(result.endSessionURL)
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(items.first { $0.name == "id_token_hint" }?.value == hint)
            #expect(!"\(result)".contains(hint), "the description shows the ID token")
            #expect(try await manager.vault.currentIDToken() == nil, "gone with the session")
            let ended = try await server.endSession(url)
            #expect(ended.status == 302 && ended.sessionStatus == 401, "Glewlwyd answered \(ended)")
        }
    }

    /// A code Glewlwyd refuses (used twice) is `codeRejected`, as `invalid_grant` would be.
    @Test func aCodeUsedTwiceIsCodeRejected() async throws {
        try await ProviderTestServer.with(.glewlwyd) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let clock = client.clock
            let manager = try client.manager()
            let request = try client.flow().authorizationRequest()
            let redirect = try await server.authorize(request.url)
            _ = try await manager.signIn(completing: request, redirect: redirect)
            // The same code again, through a second request carrying the same state and verifier
            // is not possible (one request, one exchange): exchange it by hand at the flow.
            let code = try #require(URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
            let again = try client.flow().authorizationRequest()
            do {
                _ = try await client.flow().exchange(code: code, for: again, now: clock.now)
                Issue.record("a used code was exchanged again")
            } catch {
                #expect(error as? SignInError == .codeRejected, "got \(error)")
            }
        }
    }
}
