import Foundation

/// Why a sign-in stored no session, classified by what the app shows next. Nothing was stored
/// in any case. Never carries the password, the code verifier, a code or a token: codes and
/// messages from the server are reduced to an OAuth error code.
public enum SignInError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused the credentials (400 `invalid_grant`, GoTrue's `invalid_credentials`):
    /// show "wrong e-mail or password".
    case invalidCredentials
    /// The server refused the sign-in for another reason it named (e.g. GoTrue's
    /// `email_not_confirmed`, OAuth's `invalid_request`). `error` is the server's error code,
    /// reduced to letters, digits, `_`, `-` and `.`.
    case rejected(error: String)
    /// 429: too many attempts (seed 001: 5 per 5 minutes). Try again after `retryAfter` seconds
    /// (the body's `retry_after`, the `Retry-After` header, or "try again in N seconds" in its
    /// message; 60 when it says nothing), bounded to a day.
    case rateLimited(retryAfter: TimeInterval)
    /// No answer (connection refused, dropped, timed out): the app is offline.
    case network(String)
    /// 5xx or another status that says nothing about the credentials: try again later.
    case serverError(status: Int)
    /// The server refused this app's client (`invalid_client`, `unauthorized_client`, a wrong
    /// `apikey`): the app's configuration must change.
    case clientRejected(error: String)
    /// A 2xx whose body is not a token response the vault accepts (missing fields, numbers out
    /// of range, no subject).
    case invalidResponse(String)
    /// Another session was stored (here or in another process) while this sign-in was under
    /// way: the newer one stays, this result is dropped.
    case superseded
    /// The vault could not store the session (unavailable, full, corrupted): see `VaultError`.
    case vault(VaultError)
    /// The manager's refresher cannot make this kind of sign-in (`signIn(email:password:)` needs
    /// a `GoTrueRefresher`).
    case unsupported(String)
    /// The redirect's `state` is not the one this authorization request sent (a forged or stale
    /// redirect), or the redirect carries no `state`.
    case stateMismatch
    /// The redirect carries an OAuth error instead of a code (`access_denied` when the user
    /// declined). `error` is its code, reduced as for `rejected`.
    case authorizationDenied(error: String)
    /// The redirect has neither a `code` nor an `error`, or is not for this redirect URI.
    case invalidRedirect(String)
    /// The token endpoint refused the authorization code (`invalid_grant`: expired, already
    /// used, or the verifier does not match). Start a new authorization.
    case codeRejected
    /// The ID token that came back does not belong to this sign-in (`nonce`, `iss`, `aud` or
    /// `exp`). Its signature is not verified (see `AuthorizationCodeFlow`).
    case idTokenRejected(String)
    /// This authorization request was already completed (or abandoned): one request, one
    /// exchange.
    case authorizationAlreadyUsed
    /// DPoP is on and the sign-in's proof key could not be made (nothing was sent).
    case proofKey(ProofKeyError)

    public var description: String {
        switch self {
        case .invalidCredentials: return "sign-in refused: invalid credentials"
        case .rejected(let error): return "sign-in refused by the server (\(error))"
        case .rateLimited(let retryAfter): return "sign-in rate limited; retry after \(retryAfter) s"
        case .network(let detail): return "network: \(detail)"
        case .serverError(let status): return "server answered \(status)"
        case .clientRejected(let error): return "client rejected by the server (\(error)); check the client id or api key"
        case .invalidResponse(let detail): return "invalid token response: \(detail)"
        case .superseded: return "another session was stored meanwhile; this sign-in was dropped"
        case .vault(let error): return "the session could not be stored: \(error)"
        case .unsupported(let detail): return "sign-in not supported: \(detail)"
        case .stateMismatch: return "the redirect's state does not match this authorization request"
        case .authorizationDenied(let error): return "authorization denied (\(error))"
        case .invalidRedirect(let detail): return "invalid redirect: \(detail)"
        case .codeRejected: return "the authorization code was refused (invalid_grant)"
        case .idTokenRejected(let detail): return "ID token refused: \(detail)"
        case .authorizationAlreadyUsed: return "this authorization request was already completed"
        case .proofKey(let error): return "no proof key for the sign-in: \(error)"
        }
    }

    /// An error code from outside (a body, a redirect), safe to show and log: at most 64 of
    /// the characters OAuth error codes use.
    static func errorCode(_ text: String?) -> String {
        guard let text else { return "unknown" }
        let kept = text.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)) }
        let code = String(String.UnicodeScalarView(kept.prefix(64)))
        return code.isEmpty ? "unknown" : code
    }
}
