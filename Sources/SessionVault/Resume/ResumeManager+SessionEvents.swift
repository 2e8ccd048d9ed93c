import Foundation

extension ResumeManager {
    /// The session's changes for an event-driven UI: `initialSession` first, then `signedIn`,
    /// `tokenRefreshed` and `signedOut` (with why) as they happen in this process or in another
    /// one using the same vault. The sequence ends at once when the vault cannot be opened
    /// (ask again after `resume()` answered). It does its work while the app iterates it, and
    /// nothing of it runs once the app stops.
    public func sessionEvents() -> SessionEventSequence {
        SessionEventSequence(vault: currentVault())
    }
}
