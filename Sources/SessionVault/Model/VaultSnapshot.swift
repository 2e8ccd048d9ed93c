import Foundation

/// Everything `decide` needs, read in one go when the vault is opened or resumed.
public enum VaultSnapshot: Sendable, Equatable {
    /// No current session, and why.
    case empty(MissingReason)
    /// The current session, the latest wall-clock time the vault had seen before this read,
    /// and the server clock offset (server minus local seconds) last measured.
    case session(Session, lastWallClock: Date, serverClockOffset: TimeInterval)
    /// The store cannot be trusted.
    case corrupted(CorruptionReason)
    /// The vault cannot be read right now.
    case unavailable(retryAfter: TimeInterval, detail: String)
}
