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

extension AuditEvent {
    /// What an audit log entry records. Stored as its `code`.
    public enum Kind: Sendable, Hashable, Codable, CustomStringConvertible {
        /// A sign-in was stored as the current session.
        case stored
        /// A refresh replaced the session's tokens.
        case rotated
        /// The session ended: signed out, or ended by the server or the policy (see `reason`).
        case signedOut
        /// The user turned biometric unlock on.
        case biometricEnabled
        /// Biometric unlock was turned off (by the user, or after the enrolment changed).
        case biometricDisabled
        /// The delegated subject the user acts for changed.
        case activeSubjectChanged
        /// The vault was re-encrypted under a new root key.
        case rekeyed
        /// What the server answered to a sign-out (`reason` holds scope and outcome).
        case serverSignOut
        /// The clock had moved back and the vault took the current time as its reference again
        /// (after an unlock or a refresh; see `ResumeManager`).
        case clockReanchored
        /// An entry this version does not know, e.g. written by a newer SessionVault: its text.
        case unrecognized(String)

        private static let known: [Kind] = [
            .stored, .rotated, .signedOut, .biometricEnabled, .biometricDisabled,
            .activeSubjectChanged, .rekeyed, .serverSignOut, .clockReanchored
        ]

        /// The stable text stored in the log, e.g. `signedOut`.
        public var code: String {
            switch self {
            case .stored: return "stored"
            case .rotated: return "rotated"
            case .signedOut: return "signedOut"
            case .biometricEnabled: return "biometricEnabled"
            case .biometricDisabled: return "biometricDisabled"
            case .activeSubjectChanged: return "activeSubjectChanged"
            case .rekeyed: return "rekeyed"
            case .serverSignOut: return "serverSignOut"
            case .clockReanchored: return "clockReanchored"
            case .unrecognized(let code): return code
            }
        }

        /// Reads a stored `code`; text this version does not know stays as it was written.
        package init(code: String) {
            self = Self.known.first { $0.code == code } ?? .unrecognized(code)
        }

        /// The `code`.
        public var description: String { code }

        /// Decodes the `code` string.
        public init(from decoder: any Decoder) throws {
            self.init(code: try decoder.singleValueContainer().decode(String.self))
        }

        /// Encodes the `code` string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(code)
        }
    }
}
