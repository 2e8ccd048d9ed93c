import Foundation

/// A redacted snapshot of a stored session: everything but the tokens, which appear only as
/// fingerprints. Safe to pass across the app; it prints as one short line (see `description`).
public struct Session: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Random id of this sign-in (32 hex digits).
    public let id: String
    /// Who signed in, as the token response said (see `SessionIdentity`).
    public internal(set) var identity: SessionIdentity
    /// The delegated (e.g. caregiver → patient) subject the user currently acts for, if any.
    public let activeSubject: String?
    /// The token type the server stated, normally `bearer`.
    public internal(set) var tokenType: String
    /// The scope the server granted, when it stated one.
    public internal(set) var scope: String?
    /// The refresh token's fingerprint: the only form in which it is ever shown. Nil when the
    /// server issued no refresh token.
    public internal(set) var refreshTokenFingerprint: Fingerprint?
    /// The cached access token's fingerprint.
    public internal(set) var accessTokenFingerprint: Fingerprint?
    /// Local time the access token expires: receipt time + `expires_in`.
    public internal(set) var accessExpiresAt: Date?
    /// Local time the cached access token arrived (the receipt time its expiry was measured
    /// from), so that its granted lifetime is known. Nil for a session stored by a release that
    /// did not record it.
    public internal(set) var accessIssuedAt: Date?
    /// The server's own `expires_at`, kept for reference (server clock).
    public internal(set) var serverExpiresAt: Date?
    /// When the refresh token expires: the server's `refresh_expires_in`, or the policy's
    /// `refreshTokenLifetime` when the server states none.
    public internal(set) var refreshExpiresAt: Date?
    /// When the first token of this sign-in was received.
    public let issuedAt: Date
    /// Past this the session is over whatever the tokens say (tenant absolute lifetime).
    public let absoluteDeadline: Date?
    /// The latest user activity recorded (`Vault.touch()`), for the idle timeout.
    public internal(set) var lastActiveAt: Date
    /// The user's preference: unlock with biometrics on resume.
    public let biometricEnabled: Bool
    /// Grows with every token change; refresh results are committed only against the version
    /// they were started from (compare-and-swap).
    public internal(set) var tokenVersion: Int64
    /// Set while a refresh is in flight (durably, before the network call).
    public internal(set) var refreshPendingSince: Date?

    /// The RFC 7638 thumbprint (`jkt`) of the DPoP proof key the server bound this session's
    /// tokens to; nil for a bearer session. Only the thumbprint: the key itself is never shown.
    public internal(set) var proofKeyThumbprint: String?

    /// When the server first refused this session's refresh without a verdict on the grant (a
    /// 4xx that names no error the library knows); nil when it has not, or answered with tokens
    /// since. See `ResumeOutcome.renewalRefused`.
    public internal(set) var refreshRefusedSince: Date?

    /// Whether a refresh token is stored.
    public var hasRefreshToken: Bool { refreshTokenFingerprint != nil }

    /// The first 8 hex digits of `id`, for log lines.
    var shortID: String { DescriptionText.short(id) }

    /// One line: shortened id, subject, fingerprints and expiries, token version. No token, no
    /// email address or display name.
    public var description: String {
        "Session(\(shortID), subject \(identity.subject), refresh fp \(refreshTokenFingerprint?.hex ?? "-") until "
            + "\(DescriptionText.time(refreshExpiresAt)), access fp \(accessTokenFingerprint?.hex ?? "-") until "
            + "\(DescriptionText.time(accessExpiresAt)), version \(tokenVersion)\(biometricEnabled ? ", biometric" : ""))"
    }
}

/// The pieces the `description`s of the public types share, so they read alike: ISO 8601 UTC
/// times, shortened ids. Descriptions never include a token or a key (only fingerprints), and
/// leave out personal data such as email addresses and display names: apps log them.
enum DescriptionText {
    /// `2027-01-15T09:00:00Z`, or `-` for none.
    static func time(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(Date.ISO8601FormatStyle())
    }

    /// The first 8 characters of an id and an ellipsis: enough to match a log line to a row.
    static func short(_ id: String) -> String {
        id.count > 8 ? String(id.prefix(8)) + "…" : id
    }
}
