/// What the server said to a sign-out. The local sign-out has happened whatever this says.
public enum ServerSignOut: Sendable, Equatable {
    /// The server ended the session (or revoked the token).
    case ended
    /// The server no longer knew the session or token (401, 403, 404): nothing left to end.
    case alreadyEnded
    /// The server could not be told (offline, 5xx, unexpected answer); the detail names no token.
    case failed(String)
    /// The refresher has no way to tell its server (not a `SessionTerminator`, or no endpoint).
    case notSupported
    /// There was no session to end.
    case noSession

    /// Stable text for the audit log.
    var code: String {
        switch self {
        case .ended: return "ended"
        case .alreadyEnded: return "alreadyEnded"
        case .failed: return "failed"
        case .notSupported: return "notSupported"
        case .noSession: return "noSession"
        }
    }
}
