import Foundation

/// Why a refresh did not produce tokens, classified by what the app must do.
public enum RefreshError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `invalid_grant` (or GoTrue's `refresh_token_not_found` / `refresh_token_already_used`) in
    /// the server's JSON error body, at any status: the refresh token is dead. Session over:
    /// clear tokens, full login.
    case invalidGrant
    /// `SESSION_EXPIRED` (the 401 contract's code, or GoTrue's `session_not_found` /
    /// `session_expired`) in the server's JSON error body: over, and tell the user "your session
    /// has expired".
    case sessionExpired
    /// `AUTH_REQUIRED` in the server's JSON error body: over, no message.
    case authRequired
    /// 400/401 `invalid_client` or `unauthorized_client`: the server refused this app's client
    /// (wrong client id or secret, or a client not allowed the refresh grant). The refresh token
    /// was not judged and may still be valid: tokens kept; the app's configuration must change,
    /// so retrying as is will not help. `error` is the OAuth error code, never a value we sent.
    case clientRejected(error: String)
    /// 400 `invalid_scope`: the requested scope exceeds what the grant covers (RFC 6749 §6).
    /// No refresh with this request can succeed; only a new sign-in can grant the scope.
    case invalidScope
    /// The server refused the request's DPoP proof (`invalid_dpop_proof`, or `use_dpop_nonce`
    /// after the one retry with its nonce), at any status: about the proof, not the grant.
    /// Tokens kept; the next attempt sends a new proof.
    case proofRejected(error: String)
    /// A 400, 401 or 403 that names no error the library knows (an empty body, or an OAuth error
    /// such as `invalid_request`): the server refused the refresh without saying the grant is over.
    /// Tokens kept and the refusal recorded; see `ResumeOutcome.renewalRefused` for when such
    /// refusals end the session. `error` is the body's OAuth `error`, reduced to a code, if any.
    case refusedUnexplained(status: Int, error: String?)
    /// 429: try again after the delay; tokens kept.
    case rateLimited(retryAfter: TimeInterval)
    /// 5xx or another status that says nothing about the token: tokens kept, retry later.
    case serverUnavailable(status: Int)
    /// No answer (connection refused, dropped, timed out): tokens kept, the app is offline.
    case network(String)
    /// A 2xx whose body is not a usable token response: tokens kept (nothing was stored).
    case invalidResponse(String)

    public var description: String {
        switch self {
        case .invalidGrant: return "refresh token rejected (invalid_grant)"
        case .sessionExpired: return "session expired (server)"
        case .authRequired: return "authentication required (server)"
        case .clientRejected(let error): return "client rejected by the server (\(error)); check the client id"
        case .invalidScope: return "requested scope rejected (invalid_scope)"
        case .rateLimited(let retryAfter): return "rate limited; retry after \(retryAfter) s"
        case .serverUnavailable(let status): return "server answered \(status)"
        case .proofRejected(let error): return "DPoP proof refused (\(error))"
        case .refusedUnexplained(let status, let error): return "refresh refused without a verdict on the grant (\(status)\(error.map { " " + $0 } ?? ""))"
        case .network(let detail): return "network: \(detail)"
        case .invalidResponse(let detail): return "invalid token response: \(detail)"
        }
    }

    /// Whether the session is over (tokens must be cleared).
    public var endsSession: Bool {
        switch self {
        case .invalidGrant, .sessionExpired, .authRequired, .invalidScope: return true
        default: return false
        }
    }
}
