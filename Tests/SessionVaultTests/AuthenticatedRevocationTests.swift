import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// RFC 7009 lets a server require authentication for revocation; Glewlwyd answers a public
/// client that sends only its `client_id` with 401 and takes the session's access token instead.
/// The library reported `serverSessionMayOutlive` and an app had no way to end its session there.
@Suite("Revocation authenticated by the session's access token", .timeLimit(.minutes(1)))
struct AuthenticatedRevocationTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func signOut(sendsAccessToken: Bool) async throws -> SignOutResult {
        let vault = try fixture.open()
        try await vault.store(TokenResponse(json: Fixtures.oauthJSON()))
        await vault.close()
        let refresher = OAuth2Refresher(
            tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: "app-client",
            revocationEndpoint: server.baseURL.appendingPathComponent("revoke"), revocationSendsAccessToken: sendsAccessToken)
        return try await ResumeManager(path: fixture.path, keyProvider: fixture.keys, refresher: refresher, clock: fixture.clock.function).signOut()
    }

    @Test func aRevocationRefusedForWantOfAuthenticationIsSentOnceMoreWithTheAccessToken() async throws {
        server.enqueue(ScriptedResponse(status: 401))
        server.enqueue(ScriptedResponse(status: 200))
        let result = try await signOut(sendsAccessToken: false)
        #expect(result.server == .ended)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("Authorization") == nil)
        #expect(requests.last?.header("Authorization") == "Bearer opaque-\(Fixtures.accessMarker)")
        #expect(requests.allSatisfy { $0.bodyString.hasPrefix("token=\(Fixtures.refreshMarker)") })
    }

    @Test func refusedTwiceIsTheServersWordNeverAThirdRequest() async throws {
        server.enqueue(ScriptedResponse(status: 401))
        server.enqueue(ScriptedResponse(status: 401))
        let result = try await signOut(sendsAccessToken: false)
        guard case .clientRejected = result.server else { Issue.record("got \(result.server)"); return }
        #expect(result.serverSessionMayOutlive)
        #expect(server.requestCount == 2)
    }

    /// With no refresh token the access token is the token revoked: it may be DPoP-bound, and
    /// without a proof at hand it is never presented as Bearer; the refusal stands.
    @Test func theRevokedAccessTokenAloneIsNeverPresented() async throws {
        let vault = try fixture.open()
        try await vault.store(
            TokenResponse(json: Data(#"{"access_token":"opaque-\#(Fixtures.accessMarker)","token_type":"Bearer","expires_in":600,"user":{"id":"u-1"}}"#.utf8)))
        await vault.close()
        server.enqueue(ScriptedResponse(status: 401))
        let refresher = OAuth2Refresher(
            tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: "app-client",
            revocationEndpoint: server.baseURL.appendingPathComponent("revoke"))
        let result = try await ResumeManager(path: fixture.path, keyProvider: fixture.keys, refresher: refresher, clock: fixture.clock.function).signOut()
        guard case .clientRejected = result.server else { Issue.record("got \(result.server)"); return }
        #expect(server.requestCount == 1)
        #expect(server.requests.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func configuredUpFrontTheFirstRequestCarriesIt() async throws {
        server.enqueue(ScriptedResponse(status: 200))
        let result = try await signOut(sendsAccessToken: true)
        #expect(result.server == .ended)
        #expect(server.requestCount == 1)
        #expect(server.requests.first?.header("Authorization") == "Bearer opaque-\(Fixtures.accessMarker)")
    }
}
