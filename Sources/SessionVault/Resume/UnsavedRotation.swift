import Foundation

/// A refresh the server answered whose rotated tokens could not be written (the commit met a
/// full disk): the only copy of the session's new tokens, in locked memory (`Token`), until the
/// write succeeds. See `ResumeManager.unsavedRotation`.
struct UnsavedRotation: Sendable {
    /// The session and token version the refresh started from: the write's compare-and-swap.
    let sessionID: String
    let version: Int64
    let refreshed: RefreshedTokens
    let serverClockOffset: TimeInterval?
    /// The refresh's prover (nil for a bearer session): a rotation that finds its session gone
    /// ends the server session with it.
    let prover: DPoPProver?
}
