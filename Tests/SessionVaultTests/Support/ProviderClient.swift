import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import SessionVault

/// An app of ours against a `ProviderTestServer`, as the README writes one: the
/// authorization-code flow, an `OAuth2Refresher` with the provider's revocation and end-session
/// endpoints, a manager on a real vault, and userinfo as an API call.
struct ProviderClient {
    let fixture: TestVault
    let server: ProviderTestServer
    let clock = DeviceClock()

    /// The device's clock: this machine's, moved by a skew (a device set wrong, or moved past a
    /// token's expiry without the server).
    final class DeviceClock: @unchecked Sendable {
        private let lock = NSLock()
        private var skew: TimeInterval = 0
        var now: Date { lock.withLock { Date().addingTimeInterval(skew) } }
        func set(skew seconds: TimeInterval) { lock.withLock { skew = seconds } }
        func advance(by seconds: TimeInterval) { lock.withLock { skew += seconds } }
    }

    func flow() throws -> AuthorizationCodeFlow {
        let info = server.info
        return AuthorizationCodeFlow(
            authorizationEndpoint: try server.url(info.authorization_endpoint), tokenEndpoint: try server.url(info.token_endpoint),
            clientID: info.client_id, redirectURI: try server.url(info.redirect_uri), scope: info.scope, issuer: info.issuer, timeout: 10)
    }

    func refresher() throws -> OAuth2Refresher {
        let info = server.info
        return OAuth2Refresher(
            tokenEndpoint: try server.url(info.token_endpoint), clientID: info.client_id,
            revocationEndpoint: try server.url(info.revocation_endpoint), endSessionEndpoint: try info.end_session_endpoint.map(server.url),
            postLogoutRedirectURI: try info.post_logout_redirect_uri.map(server.url), timeout: 10)
    }

    func manager(dpop: Bool = false) throws -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let clock = self.clock
        return ResumeManager(
            path: fixture.path, keyProvider: fixture.keys, refresher: try refresher(), policy: policy,
            clock: { clock.now }, backoff: RetryBackoff(base: 0.01, cap: 0.1), dpop: dpop ? DPoPConfiguration() : nil)
    }

    /// PKCE sign-in through the provider's own login (and consent), as a browser would.
    func signIn(_ manager: ResumeManager, additionalParameters: [String: String] = [:]) async throws -> Session {
        let request = try flow().authorizationRequest(additionalParameters: additionalParameters)
        let redirect = try await server.authorize(request.url)
        return try await manager.signIn(completing: request, redirect: redirect)
    }

    /// The provider's userinfo with the session's access token (and a proof for a DPoP session,
    /// taking one nonce or date challenge): the status and the `sub` it names.
    func userinfo(_ manager: ResumeManager) async throws -> (status: Int, subject: String?) {
        guard case .token(let token, _) = await manager.freshAccessToken() else { return (0, nil) }
        let url = try server.url(server.info.userinfo_endpoint)
        for _ in 0..<2 {
            var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
            let value = token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            if let proof = try await manager.dpopProof(method: "GET", url: url, accessToken: token) {
                request.setValue("DPoP " + value, forHTTPHeaderField: "Authorization")
                request.setValue(proof, forHTTPHeaderField: "DPoP")
            } else {
                request.setValue("Bearer " + value, forHTTPHeaderField: "Authorization")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            if http.statusCode == 200 {
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                return (200, object?["sub"] as? String)
            }
            let retry = await manager.takeDPoPChallenge(
                status: http.statusCode, wwwAuthenticate: http.value(forHTTPHeaderField: "WWW-Authenticate"),
                dpopNonce: http.value(forHTTPHeaderField: "DPoP-Nonce"), date: http.value(forHTTPHeaderField: "Date"), for: url)
            if !retry { return (http.statusCode, nil) }
        }
        return (0, nil)
    }

    /// Spends `token` at the token endpoint outside the library (a copy of the vault, a second
    /// runtime): the status the provider answered.
    func spendElsewhere(_ token: Token) async throws -> Int {
        var body = Data("grant_type=refresh_token&client_id=\(server.info.client_id)&refresh_token=".utf8)
        token.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        let (_, status) = try await ProviderTestServer.send(
            try server.url(server.info.token_endpoint), body: body, headers: ["Content-Type": "application/x-www-form-urlencoded"])
        return status
    }
}
