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
        guard status == 401 || status == 403 else { return nil }
        let parsed = AuthErrorBody(body)
        if status == 401, parsed.error?.lowercased() == "invalid_token" || Self.challengeSaysInvalidToken(wwwAuthenticate) {
            return await refreshNow()
        }
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

    /// `Bearer realm="…", error="invalid_token", …` (RFC 6750 §3), parameters in any order.
    static func challengeSaysInvalidToken(_ challenge: String?) -> Bool {
        guard let challenge = challenge?.lowercased(), challenge.hasPrefix("bearer") else { return false }
        return challenge.replacingOccurrences(of: " ", with: "").contains("error=\"invalid_token\"")
    }
}
