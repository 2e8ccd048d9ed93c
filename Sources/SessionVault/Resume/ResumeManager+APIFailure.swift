import Foundation

extension ResumeManager {
    /// Feeds an app API call's failed response here, with the access token the call sent.
    ///
    /// How a failure is classified (see `APIFailureVerdict`):
    /// - **The access token is no good, the session may be fine**: RFC 6750 `invalid_token` (in
    ///   the body's `error` or a `WWW-Authenticate: Bearer error="invalid_token"` challenge), or
    ///   a plain "JWT expired" / "token expired" message (Supabase's PostgREST answers an expired
    ///   access token with `401 {"message":"JWT expired"}`). One refresh, single-flight with every
    ///   other caller; `.home` means "retry the call once with `freshAccessToken()`". A second
    ///   401 on the retried call is the app's to report: do not feed it here again.
    /// - **The session is over**: the app contract's `SESSION_EXPIRED` (login with the "session
    ///   expired" message) or `AUTH_REQUIRED` (login without it), and "session expired",
    ///   "refresh_token_not_found", "invalid refresh token" texts (case-insensitive). The local
    ///   tokens are cleared and the login outcome returned.
    /// - Anything else returns nil (not an authentication failure: the app handles it).
    ///
    /// The failure answers `sentToken`, not whatever session is current when it arrives: when
    /// that token is no longer the current access token (the session was refreshed meanwhile,
    /// or signed out, or another user signed in), nothing is refreshed or ended, and the outcome
    /// is the current session's (`resume()`), so the call can be retried with its token.
    public func handleAPIFailure(status: Int, body: Data, wwwAuthenticate: String? = nil, sentToken: Token) async -> ResumeOutcome? {
        let verdict = APIFailureVerdict.classify(status: status, body: body, wwwAuthenticate: wwwAuthenticate)
        if case .notAuthentication = verdict { return nil }
        guard let vault = try? self.vault else { return await resume() }
        let current: Session
        do {
            guard let session = try await vault.currentSession(), let sent = sentToken.fingerprint,
                  session.accessTokenFingerprint == sent, unsavedRotation == nil else {
                // Late: an answer to a token that is no longer the one in use.
                logger.notice("API failure for a token no longer current; nothing ended or refreshed",
                              metadata: ["token.fp": "\(sentToken.fingerprint?.hex ?? "-")"])
                return await resume()
            }
            current = session
        } catch {
            return await outcome(for: error)
        }
        switch verdict {
        case .notAuthentication: return nil
        case .refreshAccessToken: return await refreshForBackground(current)
        case .endSession(let reason): return await endSession(vault, reason: reason, sessionID: current.id, version: current.tokenVersion)
        }
    }
}
