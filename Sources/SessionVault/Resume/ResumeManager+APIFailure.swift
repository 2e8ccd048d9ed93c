import Foundation

extension ResumeManager {
    /// Feeds an app API call's failed response here. A 401 or 403 whose body says the session
    /// is over (`SESSION_EXPIRED`, `AUTH_REQUIRED`, "jwt expired", "token expired", "session
    /// expired", "refresh_token_not_found", "invalid refresh token"; case-insensitive) clears the
    /// local tokens and returns the login outcome: with the "session expired" message for the
    /// expiry signals, without it for `AUTH_REQUIRED`. Anything else returns nil (not an
    /// authentication failure: the app handles it).
    public func handleAPIFailure(status: Int, body: Data) async -> ResumeOutcome? {
        guard status == 401 || status == 403 else { return nil }
        let parsed = AuthErrorBody(body)
        let reason: MissingReason
        if parsed.errorCode?.uppercased() == "AUTH_REQUIRED" || (parsed.saysAuthRequired && !parsed.saysSessionExpired) {
            reason = .authRequired
        } else if parsed.errorCode?.uppercased() == "SESSION_EXPIRED" || parsed.saysSessionExpired {
            reason = .sessionExpired
        } else {
            return nil
        }
        guard let vault = currentVault() else {
            return .login(reason: reason, showExpiredMessage: Self.showsExpiredMessage(reason))
        }
        return await endSession(vault, reason: reason)
    }
}
