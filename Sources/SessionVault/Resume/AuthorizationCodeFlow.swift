import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The OAuth 2.0 authorization-code flow with PKCE (RFC 7636, S256) for a public client, and
/// OpenID Connect's `nonce` when the scope asks for `openid`.
///
/// The browser part is the app's (`ASWebAuthenticationSession`, Custom Tabs): it opens
/// `authorizationRequest().url` and hands the redirect it receives to
/// `ResumeManager.signIn(completing:redirect:)`, which checks `state`, exchanges the code with
/// the verifier, checks the ID token if one comes back, and stores the session.
///
/// **The ID token's signature is not verified.** Its `iss`, `aud`/`azp`, `exp` and `nonce`
/// are checked; the token comes straight from the token endpoint over TLS (OIDC Core
/// §3.1.3.7 allows that in place of the signature), and the session's identity is the token
/// endpoint's answer. Use HTTPS endpoints.
public struct AuthorizationCodeFlow: Sendable {
    /// The server's authorization endpoint (RFC 6749 §3.1).
    public let authorizationEndpoint: URL
    /// The server's token endpoint (RFC 6749 §3.2).
    public let tokenEndpoint: URL
    /// The app's public client id.
    public let clientID: String
    /// Where the server sends the browser back: a loopback URL, a claimed HTTPS link or the
    /// app's custom scheme, as registered with the server.
    public let redirectURI: URL
    /// The scope to ask for; with `openid` in it the request carries a `nonce`.
    public let scope: String?
    /// The issuer an ID token (and an RFC 9207 `iss` redirect parameter) must name; nil skips
    /// that check.
    public let issuer: String?
    let transport: HTTPRefreshTransport

    /// - Parameters:
    ///   - authorizationEndpoint: the authorization endpoint the browser opens.
    ///   - tokenEndpoint: the token endpoint the code is exchanged at.
    ///   - clientID: the app's public client id.
    ///   - redirectURI: the registered redirect URI.
    ///   - scope: the scope to ask for (`"openid profile"` for OIDC).
    ///   - issuer: the expected `iss` of ID tokens; nil skips that check.
    ///   - session: the `URLSession` the code exchange goes through.
    ///   - timeout: seconds for the code exchange.
    public init(
        authorizationEndpoint: URL, tokenEndpoint: URL, clientID: String, redirectURI: URL, scope: String? = nil,
        issuer: String? = nil, session: URLSession = .shared, timeout: TimeInterval = 15
    ) {
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scope = scope
        self.issuer = issuer
        self.transport = HTTPRefreshTransport(session: session, timeout: timeout)
    }

    /// Whether the scope asks for OpenID Connect (then a `nonce` is sent and required back).
    var isOpenID: Bool { scope?.split(separator: " ").contains("openid") ?? false }

    /// A new authorization request: a fresh code verifier (64 characters from libsodium's
    /// random source, in locked memory), its S256 challenge, `state` and, for OIDC, `nonce`.
    /// Open its `url` in the browser; keep the request until the redirect comes back.
    ///
    /// - Parameter additionalParameters: more query parameters (`prompt`, `login_hint`, …);
    ///   they cannot replace the ones the flow sets.
    /// - Throws: `.vault(.crypto(_))` when locked memory cannot be had.
    public func authorizationRequest(additionalParameters: [String: String] = [:]) throws(SignInError) -> AuthorizationRequest {
        let verifier: SecretBytes
        do { verifier = try PKCE.makeVerifier() } catch { throw .vault(.crypto(error)) }
        let state = PKCE.randomToken()
        let nonce = isOpenID ? PKCE.randomToken() : nil
        var items = [
            URLQueryItem(name: "response_type", value: "code"),
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI.absoluteString)
        ]
        if let scope { items.append(URLQueryItem(name: "scope", value: scope)) }
        items += [
            URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "code_challenge", value: PKCE.challenge(for: verifier)),
            URLQueryItem(name: "code_challenge_method", value: "S256")
        ]
        if let nonce { items.append(URLQueryItem(name: "nonce", value: nonce)) }
        let taken = Set(items.map(\.name))
        items += additionalParameters.sorted { $0.key < $1.key }.filter { !taken.contains($0.key) }.map { URLQueryItem(name: $0.key, value: $0.value) }
        guard var components = URLComponents(url: authorizationEndpoint, resolvingAgainstBaseURL: false) else {
            throw .invalidRedirect("the authorization endpoint is not a URL")
        }
        components.queryItems = (components.queryItems ?? []) + items
        // `+` is a space in a form-encoded query: a literal one must travel as %2B.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw .invalidRedirect("the authorization URL cannot be built") }
        return AuthorizationRequest(flow: self, url: url, verifier: verifier, state: state, nonce: nonce)
    }

    /// Exchanges `code` with the request's verifier, once (RFC 6749 §4.1.3, RFC 7636 §4.5), and
    /// checks an ID token that comes back. Stores nothing.
    func exchange(code: String, for request: AuthorizationRequest, now: Date, prover: DPoPProver? = nil) async throws(SignInError) -> RefreshedTokens {
        var body = Data("grant_type=authorization_code&code=".utf8)
        body.append(contentsOf: FormText.encoded(Array(code.utf8)))
        body.append(contentsOf: Array("&redirect_uri=".utf8) + FormText.encoded(Array(redirectURI.absoluteString.utf8)))
        body.append(contentsOf: Array("&client_id=".utf8) + FormText.encoded(Array(clientID.utf8)))
        body.append(contentsOf: Array("&code_verifier=".utf8))
        // The verifier's characters need no form encoding: straight from locked memory.
        request.verifier.withUnsafeBytes { body.append(contentsOf: $0) }
        let answer = try await transport.postSignIn(
            tokenEndpoint,
            headers: [
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json"
            ], body: body, codeExchange: true, prover: prover)
        try checkIDToken(in: answer, for: request, now: now)
        return answer.tokens
    }

    /// A granted `openid` needs a string ID token that passes the checks. The scope the answer
    /// omits was granted as requested (RFC 6749 §5.1); an `id_token` that is `null`, a number or
    /// any other non-string is refused, never skipped.
    private func checkIDToken(in answer: HTTPRefreshTransport.SignInAnswer, for request: AuthorizationRequest, now: Date) throws(SignInError) {
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any]
        let granted = answer.tokens.response.scope ?? scope
        let openIDGranted = request.nonce != nil && isOpenID && (granted?.split(separator: " ").contains("openid") ?? false)
        switch object?["id_token"] {
        case let idToken as String:
            let check = IDTokenCheck(issuer: issuer, clientID: clientID, nonce: request.nonce)
            if let failed = check.failure(of: idToken, now: now) { throw .idTokenRejected("\(failed) does not match this sign-in") }
        case nil, is NSNull:
            // The server granted `openid` but sent no ID token to check the nonce against.
            if openIDGranted { throw .idTokenRejected("no id_token for a granted openid scope") }
        default:
            throw .idTokenRejected("id_token is not a string")
        }
    }
}
