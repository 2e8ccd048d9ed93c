import Foundation

extension ResumeManager {
    /// Feeds an app API call's failed response here. A 401 or 403 whose body says the session
    /// is over (`SESSION_EXPIRED`, `AUTH_REQUIRED`, "jwt expired", "token expired", "session
    /// expired", "refresh_token_not_found", "invalid refresh token"; case-insensitive) clears the
    /// local tokens and returns the login outcome: with the "session expired" message for the
    /// expiry signals, without it for `AUTH_REQUIRED`. Anything else returns nil (not an
    /// authentication failure: the app handles it).
    ///
    /// A 401 that says only that the *access token* is no good (RFC 6750 `invalid_token`, in the
    /// body's `error` or the `WWW-Authenticate: Bearer error="invalid_token"` challenge) does not
    /// end the session: it leads to one refresh (single flight with every other caller) and
    /// returns its outcome: `.home` means "retry the call" (with `freshAccessToken()`); only a
    /// failed refresh answers `.login`.
    public func handleAPIFailure(status: Int, body: Data, wwwAuthenticate: String? = nil) async -> ResumeOutcome? {
        let reason: MissingReason
        switch APIFailureVerdict.classify(status: status, body: body, wwwAuthenticate: wwwAuthenticate) {
        case .notAuthentication: return nil
        case .refreshAccessToken: return await refreshNow()
        case .endSession(let verdict): reason = verdict
        }
        guard let vault = currentVault() else {
            return .login(reason: reason, showExpiredMessage: Self.showsExpiredMessage(reason))
        }
        return await endSession(vault, reason: reason)
    }
}
