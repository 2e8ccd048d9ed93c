/// What the server said to a sign-out. The local sign-out has happened whatever this says.
///
/// Only `.ended`, `.alreadyEnded` and `.noSession` say that the server holds no session for the
/// tokens the vault held; every other answer means it may (`SignOutResult.serverSessionMayOutlive`).
public enum ServerSignOut: Sendable, Equatable {
    /// The server ended the session (GoTrue) or revoked the refresh token (RFC 7009).
    case ended
    /// The server no longer knew the session (GoTrue `session_not_found` / `user_not_found`,
    /// 404, or a refresh token it refused as `invalid_grant`): nothing left to end.
    case alreadyEnded
    /// The server refused the access token that authenticates GoTrue's logout (expired, or a
    /// signature it does not accept) even after one refresh: the session was not looked at and
    /// may live on.
    case accessTokenRejected
    /// The server refused the app's client (RFC 7009 `invalid_client`, 401): nothing was revoked,
    /// and nothing will be until the client configuration is fixed. The text is the server's
    /// OAuth error code or the status, never a value we sent.
    case clientRejected(String)
    /// The server could not be told (offline, 5xx, unexpected answer); the detail names no token.
    case failed(String)
    /// The refresher has no way to tell its server (not a `SessionTerminator`, or no endpoint).
    case notSupported
    /// There was no session to end.
    case noSession

    /// Whether the server is known to hold no session for the tokens the vault held.
    var serverSessionGone: Bool {
        switch self {
        case .ended, .alreadyEnded, .noSession: return true
        case .accessTokenRejected, .clientRejected, .failed, .notSupported: return false
        }
    }

    /// Stable text for the audit log.
    var code: String {
        switch self {
        case .ended: return "ended"
        case .alreadyEnded: return "alreadyEnded"
        case .accessTokenRejected: return "accessTokenRejected"
        case .clientRejected: return "clientRejected"
        case .failed: return "failed"
        case .notSupported: return "notSupported"
        case .noSession: return "noSession"
        }
    }
}
