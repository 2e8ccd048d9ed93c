import Foundation

/// One row of the vault's audit log: what happened, when, to which session. Never a token: at
/// most a token's fingerprint.
public struct AuditEvent: Sendable, Equatable, Codable {
    /// Row id; grows with every event (the log is capped, so old ids disappear).
    public let id: Int64
    /// When it happened, by the vault's clock.
    public let at: Date
    /// What happened: `stored`, `rotated`, `signedOut`, `biometricEnabled`, `biometricDisabled`,
    /// `activeSubjectChanged`, …
    public let event: String
    public let sessionID: String?
    /// The refresh (or access) token fingerprint the event concerns, if any.
    public let fingerprint: Fingerprint?
    /// Why, in stable text (e.g. a `MissingReason` code), if recorded.
    public let reason: String?

    public init(id: Int64, at: Date, event: String, sessionID: String?, fingerprint: Fingerprint?, reason: String?) {
        self.id = id
        self.at = at
        self.event = event
        self.sessionID = sessionID
        self.fingerprint = fingerprint
        self.reason = reason
    }
}
