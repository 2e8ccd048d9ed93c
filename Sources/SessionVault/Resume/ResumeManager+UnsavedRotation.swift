import Foundation

extension ResumeManager {
    /// Writes a rotation kept in memory (see `unsavedRotation`) before anything else is done.
    ///
    /// - Returns: nil when there is none, or it is stored now (the caller goes on as usual);
    ///   `.home` with the stored session while the disk is still full (API calls get the
    ///   rotated access token from memory meanwhile, `freshAccessToken()`).
    func storeUnsavedRotation() async -> ResumeOutcome? {
        guard let pending = unsavedRotation, let vault = openedVault else { return nil }
        let result = await Self.rotating(
            vault, pending.refreshed, sessionID: pending.sessionID, version: pending.version,
            serverClockOffset: pending.serverClockOffset)
        switch result {
        case .failure(.storageFull):
            guard let session = try? await vault.currentSession(), session.id == pending.sessionID else { break }
            return .home(session)
        case .success:
            logger.notice("rotated tokens kept in memory are stored now", metadata: ["session.id": "\(pending.sessionID)"])
        case .failure(let error):
            // Signed out or replaced meanwhile: the rotation belongs to no session any more, and
            // the server still holds it: end it, as for any rotation that arrives after sign-out.
            logger.notice("rotated tokens kept in memory belong to no current session", metadata: ["error": "\(error)"])
            if case .staleSession = error { await endOrphanedRotation(vault, pending.refreshed, sessionID: pending.sessionID, prover: pending.prover) }
        }
        unsavedRotation = nil
        releaseRefreshLock()
        return nil
    }

    /// The access token of a rotation kept in memory, for an API call while it cannot be stored.
    func unsavedAccessToken() -> Token? { unsavedRotation?.refreshed.response.accessToken }
}

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
