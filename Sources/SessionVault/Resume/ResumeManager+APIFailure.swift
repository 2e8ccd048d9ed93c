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
            // The token's value, not its fingerprint: a rekey (here or in another process)
            // fingerprints every token again with the new key, so a token handed out before it
            // has a fingerprint the vault no longer shows, and its failure would read as late.
            guard let session = try await vault.currentSession(), let held = try await vault.accessToken(),
                held.hasSameValue(as: sentToken), unsavedRotation == nil
            else {
                // Late: an answer to a token that is no longer the one in use.
                logger.notice(
                    "API failure for a token no longer current; nothing ended or refreshed",
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
