import Foundation

extension ResumeManager {
    /// The session's changes for an event-driven UI: `initialSession` first, then `signedIn`,
    /// `tokenRefreshed` and `signedOut` (with why) as they happen in this process or in another
    /// one using the same vault. The sequence ends at once when the vault cannot be opened
    /// (ask again after `resume()` answered). It does its work while the app iterates it, and
    /// nothing of it runs once the app stops.
    public func sessionEvents() -> SessionEventSequence {
        SessionEventSequence(vault: try? self.vault)
    }
}

/// A change of the session as a UI sees it (`ResumeManager.sessionEvents()`), from this process
/// or another one using the same vault. Never carries a token: sessions show fingerprints only.
public enum SessionEvent: Sendable, Equatable, CustomStringConvertible {
    /// The first event of every stream: the session current when the app subscribed, nil when
    /// there is none.
    case initialSession(Session?)
    /// A new session became current (a sign-in, here or in another process).
    case signedIn(Session)
    /// The current session's tokens were replaced by a refresh.
    case tokenRefreshed(Session)
    /// The session ended. `reason` is the exact one, `cause` who or what ended it, and
    /// `showExpiredMessage` whether to tell the user "your session has expired".
    case signedOut(reason: MissingReason, cause: SessionEndCause, showExpiredMessage: Bool)

    /// The case and what it carries; sessions as their one-line description.
    public var description: String {
        switch self {
        case .initialSession(let session): return "initialSession(\(session.map(\.description) ?? "none"))"
        case .signedIn(let session): return "signedIn(\(session))"
        case .tokenRefreshed(let session): return "tokenRefreshed(\(session))"
        case .signedOut(let reason, let cause, let message):
            return "signedOut(\(reason.code), \(cause.rawValue)\(message ? ", show expired message" : ""))"
        }
    }
}
