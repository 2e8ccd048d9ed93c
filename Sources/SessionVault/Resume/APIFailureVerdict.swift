import Foundation

/// What an app API call's failed response means for the session, decided from the response
/// alone (see `ResumeManager.handleAPIFailure`). Kept apart from the manager so that the
/// classification of outside bodies and challenges can be exercised on its own (the auth-error
/// fuzz target), without a vault or a refresher.
package enum APIFailureVerdict: Equatable {
    /// Not an authentication failure: the app handles it.
    case notAuthentication
    /// Only the access token is no good (RFC 6750 `invalid_token`): refresh once, then retry.
    case refreshAccessToken
    /// The session is over, for this reason.
    case endSession(MissingReason)

    package static func classify(status: Int, body: Data, wwwAuthenticate: String?) -> APIFailureVerdict {
        guard status == 401 || status == 403 else { return .notAuthentication }
        let parsed = AuthErrorBody(body)
        if status == 401, parsed.error?.lowercased() == "invalid_token" || challengeSaysInvalidToken(wwwAuthenticate) {
            return .refreshAccessToken
        }
        if parsed.errorCode?.uppercased() == "AUTH_REQUIRED" || (parsed.saysAuthRequired && !parsed.saysSessionExpired) {
            return .endSession(.authRequired)
        }
        if parsed.errorCode?.uppercased() == "SESSION_EXPIRED" { return .endSession(.sessionExpired) }
        // An expired *access* token in plain words (PostgREST's "JWT expired", an RFC 6750
        // description with "expired"): the refresh token may be alive, so refresh once first.
        if status == 401, parsed.saysAccessTokenExpired { return .refreshAccessToken }
        if parsed.saysSessionExpired { return .endSession(.sessionExpired) }
        return .notAuthentication
    }

    /// `Bearer realm="…", error="invalid_token", …` (RFC 6750 §3), parameters in any order, or
    /// the same in the `DPoP` scheme (RFC 9449 §7.1: a DPoP-bound token the resource refused).
    /// A DPoP `use_dpop_nonce` challenge is not one: it asks for a nonce, not another token.
    /// The header is read as a list of challenges (RFC 9110 §11.6.1): a Bearer challenge after
    /// a Basic one counts, the words inside another parameter's value or another scheme do not.
    static func challengeSaysInvalidToken(_ challenge: String?) -> Bool {
        guard let challenge else { return false }
        return AuthenticationChallenge.parse(challenge).contains {
            ($0.scheme == "bearer" || $0.scheme == "dpop") && $0.parameters["error"]?.lowercased() == "invalid_token"
        }
    }
}
