import Foundation

/// One row of the vault's audit log: what happened, when, to which session. Never a token: at
/// most a token's fingerprint.
public struct AuditEvent: Sendable, Equatable, Codable {
    /// Row id; grows with every event (the log is capped, so old ids disappear).
    public let id: Int64
    /// When it happened, by the vault's clock.
    public let at: Date
    /// What happened.
    public let kind: Kind
    /// The session the event concerns (32 hex digits), if any.
    public let sessionID: String?
    /// The refresh (or access) token fingerprint the event concerns, if any.
    public let fingerprint: Fingerprint?
    /// Why, in stable text, if recorded: a `MissingReason` code for `signedOut`, the subject for
    /// `activeSubjectChanged`, `<scope>:<outcome>` for `serverSignOut`.
    public let reason: String?

    package init(id: Int64, at: Date, kind: Kind, sessionID: String?, fingerprint: Fingerprint?, reason: String?) {
        self.id = id
        self.at = at
        self.kind = kind
        self.sessionID = sessionID
        self.fingerprint = fingerprint
        self.reason = reason
    }
}
