import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refreshes at any RFC 6749 token endpoint (§6): form-encoded `grant_type=refresh_token`,
/// `refresh_token`, `client_id` (public clients) and optional `scope`.
public struct OAuth2Refresher: SessionRefresher {
    /// The server's token endpoint (RFC 6749 §3.2).
    public let tokenEndpoint: URL
    /// The app's (public) client id, sent with every refresh and revocation.
    public let clientID: String
    /// The scope to ask for on refresh; nil keeps the granted one (RFC 6749 §6).
    public let scope: String?
    /// RFC 7009 token revocation, used by `signOut(scope:)`; nil: the server is not told.
    public let revocationEndpoint: URL?
    /// OIDC `end_session_endpoint`, for the RP-initiated logout URL `signOut(scope:)` hands back.
    public let endSessionEndpoint: URL?
    /// Where the OIDC end-session page sends the browser afterwards.
    public let postLogoutRedirectURI: URL?
    /// Whether revocation is authenticated by the session's live access token from the first
    /// request (`Authorization: Bearer`, or `DPoP` with a proof for a bound session), for a
    /// server that requires it (RFC 7009 §2.1 lets it; Glewlwyd does for public clients). Sign-out
    /// then refreshes a dead access token first. Without it, a revocation refused for want of
    /// authentication (401, `invalid_client`) is sent once more, authenticated, when a live
    /// access token is at hand.
    public let revocationSendsAccessToken: Bool
    let transport: HTTPRefreshTransport

    /// A refresher for an RFC 6749 server.
    ///
    /// - Parameters:
    ///   - tokenEndpoint: the token endpoint.
    ///   - clientID: the app's public client id.
    ///   - scope: sent with every refresh when given.
    ///   - revocationEndpoint: RFC 7009 revocation, used by sign-out to revoke the refresh token.
    ///   - endSessionEndpoint: OIDC RP-initiated logout; sign-out hands back the URL to open.
    ///   - postLogoutRedirectURI: where that logout page sends the browser afterwards.
    ///   - revocationSendsAccessToken: authenticate revocation with the live access token from
    ///     the first request (see `revocationSendsAccessToken`).
    ///   - session: the `URLSession` requests go through.
    ///   - timeout: seconds per request.
    public init(
        tokenEndpoint: URL, clientID: String, scope: String? = nil, revocationEndpoint: URL? = nil,
        endSessionEndpoint: URL? = nil, postLogoutRedirectURI: URL? = nil, revocationSendsAccessToken: Bool = false,
        session: URLSession = .shared, timeout: TimeInterval = 15
    ) {
        self.revocationSendsAccessToken = revocationSendsAccessToken
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.scope = scope
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.transport = HTTPRefreshTransport(session: session, timeout: timeout)
    }

    public func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        try await refresh(using: refreshToken, prover: nil)
    }

    /// The refresh with a DPoP proof on the request when `prover` is given.
    public func refresh(using refreshToken: Token, prover: DPoPProver?) async throws(RefreshError) -> RefreshedTokens {
        var body = Data("grant_type=refresh_token&refresh_token=".utf8)
        refreshToken.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        body.append(contentsOf: Array("&client_id=".utf8) + FormText.encoded(Array(clientID.utf8)))
        if let scope { body.append(contentsOf: Array("&scope=".utf8) + FormText.encoded(Array(scope.utf8))) }
        return try await transport.post(
            tokenEndpoint,
            headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json"
            ], body: body, prover: prover)
    }
}

/// application/x-www-form-urlencoded encoding straight from bytes (RFC 6749 appendix B).
enum FormText {
    static func encoded<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return out
    }
}

extension OAuth2Refresher: SessionTerminator {
    /// RFC 7009: `POST revocation_endpoint` with `token=<refresh token>`,
    /// `token_type_hint=refresh_token` and `client_id`. Revoking the refresh token ends the grant
    /// (`local` and `global` alike: the grant is all RFC 7009 can name). Scope `others` is
    /// `.notSupported` and sends nothing: the one token revocation can name is this device's,
    /// which `others` keeps. Without a revocation endpoint: `.notSupported`.
    /// A refused client (401 `invalid_client`) is `.clientRejected`: nothing was revoked. A
    /// server that wants revocation authenticated gets it with the session's access token
    /// (`revocationSendsAccessToken`, or once after such a refusal): `Bearer`, or `DPoP` with a
    /// proof by `prover` for a bound session.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        await endServerSession(refreshToken: refreshToken, accessToken: accessToken, scope: scope, prover: nil)
    }

    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut {
        guard let revocationEndpoint, scope != .others else { return .notSupported }
        guard let token = refreshToken ?? accessToken else { return .alreadyEnded }
        var body = Data("token=".utf8)
        token.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        body.append(contentsOf: Array("&token_type_hint=\(refreshToken == nil ? "access_token" : "refresh_token")&client_id=".utf8))
        body.append(contentsOf: FormText.encoded(Array(clientID.utf8)))
        let first = await revoke(at: revocationEndpoint, body: body, authenticatedBy: revocationSendsAccessToken ? accessToken : nil, prover: prover)
        // Refused for want of authentication: once more with the access token, never a loop. Not
        // when the access token is the very token revoked and no proof is at hand: it may be
        // DPoP-bound (this refresher cannot tell), and a bound token is never shown as Bearer.
        guard !revocationSendsAccessToken, case .clientRejected = first, let accessToken, refreshToken != nil || prover != nil else {
            return first
        }
        return await revoke(at: revocationEndpoint, body: body, authenticatedBy: accessToken, prover: prover)
    }

    /// One revocation request, authenticated by `accessToken` when given.
    private func revoke(at endpoint: URL, body: Data, authenticatedBy accessToken: Token?, prover: DPoPProver?) async -> ServerSignOut {
        var headers = ["Content-Type": "application/x-www-form-urlencoded"]
        if let accessToken {
            let value = accessToken.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            if let prover {
                do {
                    headers["DPoP"] = try prover.proof(method: "POST", url: endpoint, accessToken: accessToken, server: .authorization)
                } catch {
                    return .failed("no DPoP proof could be made for the revocation (\(error)); nothing sent")
                }
                headers["Authorization"] = "DPoP " + value
            } else {
                headers["Authorization"] = "Bearer " + value
            }
        }
        switch await transport.sendForStatus(endpoint, headers: headers, body: body) {
        case .answered(let status, let body): return AuthErrorBody.classifyRevocation(status: status, body: body)
        case .unanswered(let outcome): return outcome
        }
    }

    /// RFC 7009 revokes the one token it names, this device's own: it cannot end only the
    /// others.
    public func canEnd(_ scope: SignOutScope) -> Bool { scope != .others }

    /// True when revocation is configured to be authenticated by the access token: sign-out then
    /// makes sure of a live one first.
    public var endsSessionWithAccessToken: Bool { revocationSendsAccessToken }

    /// OIDC RP-initiated logout: `end_session_endpoint?client_id=…&post_logout_redirect_uri=…`.
    public func endSessionURL() -> URL? { endSessionURL(idTokenHint: nil) }

    /// OIDC RP-initiated logout with the session's ID token as `id_token_hint`.
    public func endSessionURL(idTokenHint: Token?) -> URL? {
        guard let endSessionEndpoint, var components = URLComponents(url: endSessionEndpoint, resolvingAgainstBaseURL: false) else { return nil }
        var items = components.queryItems ?? []
        if let idTokenHint {
            items.append(URLQueryItem(name: "id_token_hint", value: idTokenHint.withRevealedBytes { String(decoding: $0, as: UTF8.self) }))
        }
        items.append(URLQueryItem(name: "client_id", value: clientID))
        if let postLogoutRedirectURI { items.append(URLQueryItem(name: "post_logout_redirect_uri", value: postLogoutRedirectURI.absoluteString)) }
        components.queryItems = items
        return components.url
    }
}
