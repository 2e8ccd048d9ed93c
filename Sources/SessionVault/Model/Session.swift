import Foundation

/// A redacted snapshot of a stored session: everything but the tokens, which appear only as
/// fingerprints. Safe to log, print and pass across the app.
public struct Session: Sendable, Equatable, Codable {
    /// Random id of this sign-in (32 hex digits).
    public let id: String
    public let identity: SessionIdentity
    /// The delegated (e.g. caregiver → patient) subject the user currently acts for, if any.
    public let activeSubject: String?
    public let tokenType: String
    public let scope: String?
    public let refreshTokenFingerprint: Fingerprint?
    public let accessTokenFingerprint: Fingerprint?
    /// Local time the access token expires: receipt time + `expires_in`.
    public let accessExpiresAt: Date?
    /// The server's own `expires_at`, kept for reference (server clock).
    public let serverExpiresAt: Date?
    public let refreshExpiresAt: Date?
    /// When the first token of this sign-in was received.
    public let issuedAt: Date
    /// Past this the session is over whatever the tokens say (tenant absolute lifetime).
    public let absoluteDeadline: Date?
    public internal(set) var lastActiveAt: Date
    /// The user's preference: unlock with biometrics on resume.
    public let biometricEnabled: Bool
    /// Grows with every token change; refresh results are committed only against the version
    /// they were started from (compare-and-swap).
    public let tokenVersion: Int64
    /// Set while a refresh is in flight (durably, before the network call).
    public let refreshPendingSince: Date?

    /// Whether a refresh token is stored.
    public var hasRefreshToken: Bool { refreshTokenFingerprint != nil }
}
