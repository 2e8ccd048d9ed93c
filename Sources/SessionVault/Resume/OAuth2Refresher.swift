import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refreshes at any RFC 6749 token endpoint (§6): form-encoded `grant_type=refresh_token`,
/// `refresh_token`, `client_id` (public clients) and optional `scope`.
public struct OAuth2Refresher: SessionRefresher {
    public let tokenEndpoint: URL
    public let clientID: String
    public let scope: String?
    /// RFC 7009 token revocation, used by `signOut(scope:)`; nil: the server is not told.
    public let revocationEndpoint: URL?
    /// OIDC `end_session_endpoint`, for the RP-initiated logout URL `signOut(scope:)` hands back.
    public let endSessionEndpoint: URL?
    public let postLogoutRedirectURI: URL?
    let transport: HTTPRefreshTransport

    public init(tokenEndpoint: URL, clientID: String, scope: String? = nil, revocationEndpoint: URL? = nil,
                endSessionEndpoint: URL? = nil, postLogoutRedirectURI: URL? = nil, session: URLSession = .shared, timeout: TimeInterval = 15) {
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.scope = scope
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.transport = HTTPRefreshTransport(session: session, timeout: timeout)
    }

    public func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        var body = Data("grant_type=refresh_token&refresh_token=".utf8)
        refreshToken.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        body.append(contentsOf: Array("&client_id=".utf8) + FormText.encoded(Array(clientID.utf8)))
        if let scope { body.append(contentsOf: Array("&scope=".utf8) + FormText.encoded(Array(scope.utf8))) }
        return try await transport.post(tokenEndpoint, headers: [
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        ], body: body)
    }
}
