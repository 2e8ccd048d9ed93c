import Foundation

extension OAuth2Refresher: SessionTerminator {
    /// RFC 7009: `POST revocation_endpoint` with `token=<refresh token>`,
    /// `token_type_hint=refresh_token` and `client_id`. Revoking the refresh token ends the grant
    /// (the scope has no meaning here). Without a revocation endpoint: `.notSupported`.
    /// A refused client (401 `invalid_client`) is `.clientRejected`: nothing was revoked.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        guard let revocationEndpoint else { return .notSupported }
        guard let token = refreshToken ?? accessToken else { return .alreadyEnded }
        var body = Data("token=".utf8)
        token.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        body.append(contentsOf: Array("&token_type_hint=\(refreshToken == nil ? "access_token" : "refresh_token")&client_id=".utf8))
        body.append(contentsOf: FormText.encoded(Array(clientID.utf8)))
        switch await transport.sendForStatus(revocationEndpoint, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body) {
        case .answered(let status, let body): return AuthErrorBody.classifyRevocation(status: status, body: body)
        case .unanswered(let outcome): return outcome
        }
    }

    /// OIDC RP-initiated logout: `end_session_endpoint?client_id=…&post_logout_redirect_uri=…`.
    public func endSessionURL() -> URL? {
        guard let endSessionEndpoint, var components = URLComponents(url: endSessionEndpoint, resolvingAgainstBaseURL: false) else { return nil }
        var items = components.queryItems ?? []
        items.append(URLQueryItem(name: "client_id", value: clientID))
        if let postLogoutRedirectURI { items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString)) }
        components.queryItems = items
        return components.url
    }
}
