import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// idpyoidc 5.0 (PyPI, the IdentityPython OpenID provider), an OP we did not write, behind a
/// wrapper of ours on 127.0.0.1: PKCE sign-in, refresh with rotation, userinfo, RFC 7009
/// revocation, opaque and JWT access tokens. What it showed: its JWT access tokens carry its
/// user database's id while the ID token and userinfo carry the public `sub`; a refresh token
/// gone inactive is refused with 400 `invalid_request` "Refresh token inactive"; `offline_access`
/// needs `prompt=consent` (OIDC Core §11).
@Suite("idpyoidc: an OpenID provider we did not write", .serialized, .timeLimit(.minutes(3)))
struct IdpyoidcTests {
    let fixture = TestVault()
    /// The README's advice for a provider that follows OIDC Core §11.
    static var consent: [String: String] { ["prompt": "consent"] }

    @Test(arguments: ["jwt", "opaque"])
    func signInRefreshUserinfoAndSignOut(accessTokens: String) async throws {
        try await ProviderTestServer.with(.idpyoidc, ["--access-token", accessTokens]) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let manager = try client.manager()
            let session = try await client.signIn(manager, additionalParameters: Self.consent)
            // The user is the ID token's `sub`, whatever the access token says.
            #expect(session.identity.subject == server.info.subject)
            #expect(session.identity.issuer == server.info.issuer)
            // Past the 60 s access token: a refresh with rotation; the JWT access token it brings
            // names the database id, and the session stays the same user's.
            client.clock.advance(by: 61)
            guard case .token(_, let refreshed) = await manager.freshAccessToken() else { Issue.record("no token after expiry"); return }
            #expect(refreshed.id == session.id && refreshed.tokenVersion == session.tokenVersion + 1)
            #expect(refreshed.identity.subject == server.info.subject)
            let (status, subject) = try await client.userinfo(manager)
            #expect(status == 200 && subject == server.info.subject)
            // Sign-out revokes the refresh token: spent elsewhere afterwards, it is refused.
            let token = try #require(try await manager.vault.refreshToken())
            let result = try await manager.signOut()
            #expect(result.server == .ended)
            #expect(try await client.spendElsewhere(token) == 400)
        }
    }

    /// A refresh token idpyoidc no longer accepts is refused with 400 `invalid_request`: a
    /// refusal without a verdict on the grant (`renewalRefused`, tokens kept), not "offline".
    @Test func aRefreshTokenGoneInactiveIsARefusedRenewal() async throws {
        try await ProviderTestServer.with(.idpyoidc) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let manager = try client.manager()
            _ = try await client.signIn(manager, additionalParameters: Self.consent)
            try await server.expireRefreshTokens()
            let outcome = await manager.refreshNow()
            guard case .renewalRefused = outcome else { Issue.record("got \(outcome)"); return }
            #expect(try await manager.vault.currentSession() != nil, "tokens kept")
        }
    }

    /// Asking for `offline_access` without `prompt=consent` is refused at the authorization
    /// endpoint, before any code: what the README's sign-in note is for.
    @Test func offlineAccessWithoutConsentIsRefused() async throws {
        try await ProviderTestServer.with(.idpyoidc) { server in
            let client = ProviderClient(fixture: fixture, server: server)
            let request = try client.flow().authorizationRequest()
            await #expect(throws: ProviderTestServer.HarnessError.self) { _ = try await server.authorize(request.url) }
        }
    }
}
