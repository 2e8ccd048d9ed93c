import Foundation

/// What the app does after `ResumeManager.resume()`.
public enum ResumeOutcome: Sendable, Equatable {
    /// Go straight to the home screen.
    case home(Session)
    /// Show full login. `showExpiredMessage`: say "your session has expired" (the user had a
    /// session that ended), as opposed to a plain sign-in screen.
    case login(reason: MissingReason, showExpiredMessage: Bool)
    /// Unlock failed, was cancelled or is needed without biometrics: show the PIN or password
    /// screen (fail closed). Tokens are kept; call `resumeAfterUnlock()` once the user is in.
    case locked
    /// The refresh could not reach the server (or was rate limited): tokens kept, not expiry.
    /// Retry after `retryAfter` seconds.
    case offline(Session?, retryAfter: TimeInterval)
    /// The key cannot be read right now (keystore locked after a restart, volume not mounted,
    /// file busy), or does not match the vault: retry after `retryAfter`; nothing was wiped.
    case unavailable(retryAfter: TimeInterval, detail: String)
}
