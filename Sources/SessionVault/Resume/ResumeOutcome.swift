import Foundation

/// What the app does after `ResumeManager.resume()`.
public enum ResumeOutcome: Sendable, Equatable, CustomStringConvertible {
    /// Go straight to the home screen.
    case home(Session)
    /// Show full login. `showExpiredMessage`: say "your session has expired" (the user had a
    /// session that ended), as opposed to a plain sign-in screen.
    case login(reason: MissingReason, showExpiredMessage: Bool)
    /// Unlock failed, was cancelled or is needed without biometrics: show the PIN or password
    /// screen (fail closed). Tokens are kept; call `resumeAfterUnlock()` once the user is in.
    case locked
    /// The refresh could not reach the server (or was rate limited): tokens kept, not expiry.
    /// Retry after `retryAfter` seconds. The session is the one whose refresh failed: the app
    /// may show its home screen in an offline state.
    case offline(Session, retryAfter: TimeInterval)
    /// The server refused to renew the session without saying that it is over (a 4xx that names
    /// no error the library knows: an empty body, `invalid_request`). Tokens kept, the refusal
    /// recorded for every process since `since` (the first such refusal). Not offline: the
    /// server answered. The app may offer "we could not renew your session: sign in again?"
    /// and try again after `retryAfter`; a refusal that still holds `ResumePolicy.refusalLimit`
    /// after the first ends the session (`login(refreshRejected)`), as does any verdict on the
    /// grant; a later success clears it.
    case renewalRefused(Session, since: Date, retryAfter: TimeInterval)
    /// The key cannot be read right now (keystore locked after a restart, volume not mounted,
    /// file busy), or does not match the vault: retry after `retryAfter`; nothing was wiped.
    case unavailable(retryAfter: TimeInterval, detail: String)

    /// The case and what it carries, e.g. `login(refreshRejected, show expired message)`;
    /// never a token.
    public var description: String {
        switch self {
        case .home(let session): return "home(\(session))"
        case .login(let reason, let message): return "login(\(reason.code)\(message ? ", show expired message" : ""))"
        case .locked: return "locked"
        case .offline(let session, let retryAfter): return "offline(retry in \(retryAfter) s, \(session))"
        case .renewalRefused(let session, let since, let retryAfter):
            return "renewalRefused(since \(DescriptionText.time(since)), retry in \(retryAfter) s, \(session))"
        case .unavailable(let retryAfter, let detail): return "unavailable(retry in \(retryAfter) s: \(detail))"
        }
    }
}
