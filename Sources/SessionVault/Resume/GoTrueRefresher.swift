import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refreshes a Supabase GoTrue session: `POST {baseURL}/token?grant_type=refresh_token` with
/// JSON `{"refresh_token": …}` and the project's `apikey` header.
public struct GoTrueRefresher: SessionRefresher {
    /// The project's auth URL, e.g. `https://<project>.supabase.co/auth/v1`.
    public let baseURL: URL
    let apiKey: String
    let transport: HTTPRefreshTransport

    /// - Parameters:
    ///   - baseURL: the auth URL, e.g. `https://<project>.supabase.co/auth/v1`.
    ///   - apiKey: the project's anon (publishable) key, sent as `apikey`.
    ///   - session: the `URLSession` requests go through.
    ///   - timeout: seconds per request.
    public init(baseURL: URL, apiKey: String, session: URLSession = .shared, timeout: TimeInterval = 15) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.transport = HTTPRefreshTransport(session: session, timeout: timeout)
    }

    public func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        try await refresh(using: refreshToken, prover: nil)
    }

    /// The refresh with a DPoP proof on the request when `prover` is given.
    public func refresh(using refreshToken: Token, prover: DPoPProver?) async throws(RefreshError) -> RefreshedTokens {
        guard let url = tokenURL(grantType: "refresh_token") else { throw .network("invalid base URL") }
        var body = Data(#"{"refresh_token":""#.utf8)
        refreshToken.withRevealedBytes { body.append(contentsOf: JSONText.escaped($0)) }
        body.append(contentsOf: Array(#""}"#.utf8))
        return try await transport.post(url, headers: jsonHeaders, body: body, prover: prover)
    }

    /// `{baseURL}/token?grant_type=…`: GoTrue names the grant in the query, not the body.
    func tokenURL(grantType: String) -> URL? {
        var components = URLComponents(url: baseURL.appendingPathComponent("token"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "grant_type", value: grantType)]
        return components?.url
    }

    /// The headers of GoTrue's JSON token requests: the project's `apikey`, JSON both ways.
    var jsonHeaders: [String: String] { ["apikey": apiKey, "Content-Type": "application/json", "Accept": "application/json"] }
}

extension GoTrueRefresher {
    /// GoTrue's password sign-in, sent once: `POST {baseURL}/token?grant_type=password` with
    /// JSON `{"email": …, "password": …}` and the project's `apikey`. Stores nothing
    /// (`ResumeManager.signIn(email:password:biometricEnabled:)` does).
    ///
    /// The password goes from locked memory into the body without becoming a `String` again.
    func passwordSignIn(email: String, password: SecretBytes, prover: DPoPProver? = nil) async throws(SignInError) -> HTTPRefreshTransport.SignInAnswer {
        guard let url = tokenURL(grantType: "password") else { throw .network("invalid base URL") }
        var body = Data(#"{"email":""#.utf8)
        body.append(contentsOf: JSONText.escaped(Array(email.utf8)))
        body.append(contentsOf: Array(#"","password":""#.utf8))
        password.withUnsafeBytes { body.append(contentsOf: JSONText.escaped($0)) }
        body.append(contentsOf: Array(#""}"#.utf8))
        return try await transport.postSignIn(url, headers: jsonHeaders, body: body, codeExchange: false, prover: prover)
    }
}

extension GoTrueRefresher: SessionTerminator {
    /// `POST {baseURL}/logout?scope=…` with the access token as bearer: GoTrue ends the session
    /// (and, for `global` / `others`, the user's other sessions) and revokes its refresh tokens.
    /// GoTrue authenticates the logout with the access token, so `ResumeManager.signOut` hands
    /// this a live one (refreshing first when the stored one is dead or nearly so).
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        await endServerSession(refreshToken: refreshToken, accessToken: accessToken, scope: scope, prover: nil)
    }

    /// The logout of a DPoP-bound session: its access token as `Authorization: DPoP <token>`
    /// with a proof by `prover` (htm POST, htu the logout URL, ath), never as a bearer token
    /// (RFC 9449 §7.1). Nil `prover`: a bearer session, `Authorization: Bearer <token>`.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut {
        guard let accessToken else { return .accessTokenRejected }
        var components = URLComponents(url: baseURL.appendingPathComponent("logout"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "scope", value: scope.rawValue)]
        guard let url = components?.url else { return .failed("invalid base URL") }
        var headers = ["apikey": apiKey]
        if let prover {
            do {
                headers["DPoP"] = try prover.proof(method: "POST", url: url, accessToken: accessToken, server: .authorization)
            } catch {
                return .failed("no DPoP proof could be made for the logout (\(error)); nothing sent")
            }
        }
        // URLRequest takes header values as Strings: the token passes through one, briefly.
        headers["Authorization"] = accessToken.withRevealedBytes { (prover == nil ? "Bearer " : "DPoP ") + String(decoding: $0, as: UTF8.self) }
        switch await transport.sendForStatus(url, headers: headers, body: nil) {
        case .answered(let status, let body): return AuthErrorBody.classifyLogout(status: status, body: body)
        case .unanswered(let outcome): return outcome
        }
    }

    /// GoTrue's logout is authenticated by the access token.
    public var endsSessionWithAccessToken: Bool { true }
}
