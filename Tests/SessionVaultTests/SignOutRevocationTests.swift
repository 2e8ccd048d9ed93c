import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Sign-out through RFC 7009 revocation: a revocation the server refused for the client (401
/// `invalid_client`) revoked nothing, so the sign-out must not call the session ended. Against
/// django-oauth-toolkit (Tests/Servers/oauth), which proves afterwards that it still honours the
/// refresh token.
@Suite("RFC 7009 revocation refused for the client is not an ended session", .serialized)
struct SignOutRevocationTests {
    @Test func aRevocationRefusedForTheClientLeavesTheServerSessionAndSaysSo() async throws {
        try await OAuthTestServer.with { server in
            let fixture = TestVault()
            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            let grant = try await server.passwordGrant()
            let refreshToken = try OAuthServerTests.tokens(in: grant).refresh
            try await vault.store(TokenResponse(json: grant), identity: OAuthServerTests.pat)
            // The app's client id is wrong (a typo, a client deleted at the server).
            let manager = ResumeManager(
                vault: vault,
                refresher: OAuth2Refresher(
                    tokenEndpoint: server.tokenEndpoint, clientID: "not-a-registered-client",
                    revocationEndpoint: server.revocationEndpoint))
            let result = try await manager.signOut()
            guard case .clientRejected = result.server else { Issue.record("a refused client revoked nothing: \(result.server)"); return }
            #expect(result.serverSessionMayOutlive)
            #expect(try await vault.currentSession() == nil, "the local sign-out happened all the same")
            // The server still holds the grant: the refresh token it issued still works.
            #expect(try await server.refreshDirectly(refreshToken).status == 200)
        }
    }
}
