/// A change to the vault, for keeping other parts of the app (a JS runtime, an extension) in
/// sync. Never carries a token: at most its fingerprint.
public enum VaultEvent: Sendable, Equatable {
    /// New tokens were stored; the refresh token's fingerprint.
    case tokenUpdated(Fingerprint?)
    case signedOut
    case wiped(CorruptionKind?)
    case biometricChanged(Bool)
    case activeSubjectChanged(String?)
    /// Another process changed the file; re-read what you need.
    case changedElsewhere
}
