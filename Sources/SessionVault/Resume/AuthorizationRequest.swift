import Foundation

/// One pending authorization-code sign-in (`AuthorizationCodeFlow.authorizationRequest()`):
/// the URL for the browser, and what only this app knows until the redirect comes back: the
/// code verifier (locked memory), `state` and `nonce`.
///
/// It lives in this process's memory only, never in the vault: on Apple platforms the browser
/// session (`ASWebAuthenticationSession`) belongs to the process, so an app killed while the
/// browser is open cannot receive that redirect anyway; and a verifier on disk would be a
/// second secret to protect for a code that expires within minutes. After such a kill, the
/// user taps "Sign in" again. One request completes at most once.
public final class AuthorizationRequest: @unchecked Sendable, CustomStringConvertible {
    // Sendable: `used` is guarded by `lock`; everything else is set once.
    /// The URL to open in the browser (it carries the challenge, never the verifier).
    public let url: URL
    let flow: AuthorizationCodeFlow
    let verifier: SecretBytes
    let state: String
    let nonce: String?
    private let lock = NSLock()
    private var used = false

    init(flow: AuthorizationCodeFlow, url: URL, verifier: SecretBytes, state: String, nonce: String?) {
        self.flow = flow
        self.url = url
        self.verifier = verifier
        self.state = state
        self.nonce = nonce
    }

    /// The client and redirect URI; never the verifier, `state` or `nonce`.
    public var description: String { "AuthorizationRequest(client: \(flow.clientID), redirect: \(flow.redirectURI.absoluteString))" }

    /// The code in `redirect`, once it is proven to answer this request: the redirect URI
    /// matches, `state` matches (in constant time), and it carries a code rather than an error.
    /// A redirect with a wrong or missing `state` leaves the request usable (it may be forged
    /// while the real one is still on its way); any answer with the right `state` uses it up.
    func code(from redirect: URL) throws(SignInError) -> String {
        guard let components = URLComponents(url: redirect, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: flow.redirectURI, resolvingAgainstBaseURL: false)
        else {
            throw .invalidRedirect("not a URL")
        }
        guard components.scheme?.lowercased() == expected.scheme?.lowercased(),
            components.host?.lowercased() == expected.host?.lowercased(),
            expected.port == nil || components.port == expected.port,
            components.path == expected.path
        else {
            throw .invalidRedirect("not for the redirect URI \(flow.redirectURI.absoluteString)")
        }
        // RFC 6749 §4.1.2: the answer is in the query (a fragment is not ours to read).
        let items = components.queryItems ?? []
        func value(_ name: String) -> String? {
            let found = items.filter { $0.name == name }
            return found.count == 1 ? found[0].value : nil
        }
        guard let sentState = value("state"), Sodium.constantTimeEqual(Array(sentState.utf8), Array(state.utf8)) else {
            throw .stateMismatch
        }
        try markUsed()
        if let error = value("error") { throw .authorizationDenied(error: SignInError.errorCode(error)) }
        // RFC 9207: a server that names itself must name the issuer we expect.
        if let issuer = flow.issuer, let stated = value("iss"), stated != issuer { throw .invalidRedirect("iss is not the expected issuer") }
        guard let code = value("code"), !code.isEmpty else { throw .invalidRedirect("neither a code nor an error") }
        return code
    }

    private func markUsed() throws(SignInError) {
        let first = lock.withLock {
            defer { used = true }
            return !used
        }
        guard first else { throw .authorizationAlreadyUsed }
    }

    /// Zeroes the verifier: the request is over (exchanged, refused, or abandoned).
    func finish() { verifier.zero() }
}
