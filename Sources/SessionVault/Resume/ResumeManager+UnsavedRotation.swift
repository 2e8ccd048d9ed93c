import Foundation

extension ResumeManager {
    /// Writes a rotation kept in memory (see `unsavedRotation`) before anything else is done.
    ///
    /// - Returns: nil when there is none, or it is stored now (the caller goes on as usual);
    ///   `.home` with the stored session while the write still fails for a passing reason (a
    ///   full disk, a busy store; API calls get the rotated access token from memory meanwhile,
    ///   `freshAccessToken()`); `.unavailable` while the vault cannot even be read.
    func storeUnsavedRotation() async -> ResumeOutcome? {
        guard let pending = unsavedRotation, let vault = openedVault else { return nil }
        let result = await Self.rotating(
            vault, pending.refreshed, sessionID: pending.sessionID, version: pending.version,
            serverClockOffset: pending.serverClockOffset)
        switch result {
        case .failure(let error) where Self.mayStoreLater(error):
            do {
                if let session = try await vault.currentSession(), session.id == pending.sessionID { return .home(session) }
            } catch {
                // Not known whose session the vault holds now: the rotation is the only copy of
                // its tokens, and the vault still holds the refresh token it spent. Kept.
                return .unavailable(retryAfter: 1, detail: "rotated tokens are kept in memory until the vault can be written: \(error)")
            }
            // Signed out or replaced meanwhile (read, not guessed): the server still holds it.
            logger.notice("rotated tokens kept in memory belong to no current session", metadata: ["session.id": "\(pending.sessionID)"])
            await endOrphanedRotation(vault, pending.refreshed, sessionID: pending.sessionID, prover: pending.prover)
        case .success:
            logger.notice("rotated tokens kept in memory are stored now", metadata: ["session.id": "\(pending.sessionID)"])
        case .failure(let error):
            // Signed out or replaced meanwhile: the rotation belongs to no session any more, and
            // the server still holds it: end it, as for any rotation that arrives after sign-out.
            logger.notice("rotated tokens kept in memory belong to no current session", metadata: ["error": "\(error)"])
            if case .staleSession = error { await endOrphanedRotation(vault, pending.refreshed, sessionID: pending.sessionID, prover: pending.prover) }
        }
        // Only the rotation this call tried: a concurrent call (the auto-refresh loop and an API
        // call meet here across the await) may have settled it, and the refresh lock it held
        // released, already; releasing twice could unlock a refresh begun since.
        guard let still = unsavedRotation, still.sessionID == pending.sessionID, still.version == pending.version else { return nil }
        unsavedRotation = nil
        releaseRefreshLock()
        return nil
    }

    /// The access token of a rotation kept in memory, for an API call while it cannot be stored.
    func unsavedAccessToken() -> Token? { unsavedRotation?.refreshed.response.accessToken }
}

/// A refresh the server answered whose rotated tokens could not be written (the commit met a
/// full disk, a busy store or an I/O error: `ResumeManager.mayStoreLater`): the only copy of the session's new tokens, in locked memory (`Token`), until the
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
