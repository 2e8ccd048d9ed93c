/// A change to the vault, for keeping other parts of the app (a JS runtime, an extension) in
/// sync. Never carries a token: at most its fingerprint.
public enum VaultEvent: Sendable, Equatable, CustomStringConvertible {
    /// New tokens were stored (a sign-in or a refresh); the refresh token's fingerprint.
    case tokenUpdated(Fingerprint?)
    /// The session ended: a sign-out here or in another process, or ended by the server or
    /// the policy.
    case signedOut
    /// The vault was wiped: with the corruption kind for a recovery wipe, nil for a wipe the
    /// app asked for.
    case wiped(CorruptionKind?)
    /// Biometric unlock was turned on (true) or off (false).
    case biometricChanged(Bool)
    /// The delegated subject the user acts for changed; nil is the user's own context.
    case activeSubjectChanged(String?)
    /// Another process changed the file; re-read what you need.
    case changedElsewhere

    /// The case and its value, e.g. `tokenUpdated(fp 659cafa202416fda)`.
    public var description: String {
        switch self {
        case .tokenUpdated(let fingerprint): return "tokenUpdated(fp \(fingerprint?.hex ?? "-"))"
        case .signedOut: return "signedOut"
        case .wiped(let kind): return "wiped(\(kind?.rawValue ?? "on request"))"
        case .biometricChanged(let enabled): return "biometricChanged(\(enabled ? "on" : "off"))"
        case .activeSubjectChanged(let subject): return "activeSubjectChanged(\(subject ?? "self"))"
        case .changedElsewhere: return "changedElsewhere"
        }
    }
}
