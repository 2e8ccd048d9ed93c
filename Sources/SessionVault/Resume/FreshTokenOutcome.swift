import Foundation

/// What `ResumeManager.freshAccessToken()` gives an API call.
public enum FreshTokenOutcome: Sendable, CustomStringConvertible {
    /// An access token with at least the policy's minimum TTL left, and the session it belongs to.
    /// Reveal its bytes only for the request (`withRevealedBytes`).
    case token(Token, Session)
    /// The session is over: show login (with the "session expired" message when asked).
    case sessionEnded(reason: MissingReason, showExpiredMessage: Bool)
    /// The server could not be reached or is rate limiting: tokens kept; try again later.
    case offline(retryAfter: TimeInterval)
    /// The user must unlock first (idle timeout passed, or the biometric prompt failed): show
    /// your unlock screen, then `resumeAfterUnlock()`.
    case locked
    /// The vault cannot be read right now (locked keystore, busy, replaced): retry later.
    case unavailable(retryAfter: TimeInterval, detail: String)

    /// The case and what it carries; a token appears only as its fingerprint.
    public var description: String {
        switch self {
        case .token(let token, let session): return "token(\(token), \(session))"
        case .sessionEnded(let reason, let message): return "sessionEnded(\(reason.code)\(message ? ", show expired message" : ""))"
        case .offline(let retryAfter): return "offline(retry in \(retryAfter) s)"
        case .locked: return "locked"
        case .unavailable(let retryAfter, let detail): return "unavailable(retry in \(retryAfter) s: \(detail))"
        }
    }
}
