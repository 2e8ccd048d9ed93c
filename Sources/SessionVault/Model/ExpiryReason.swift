/// Why a stored session needs a refresh (and possibly an unlock) before use.
public enum ExpiryReason: String, Sendable, Codable, CaseIterable {
    /// The access token's lifetime is over.
    case accessTokenExpired
    /// The access token expires within the policy's minimum TTL.
    case accessTokenExpiringSoon
    /// No access token is cached.
    case noAccessToken
    /// The idle timeout passed: the user must unlock again (biometric if enabled).
    case idle
    /// The wall clock is earlier than the vault has already seen: times cannot be trusted.
    case clockRolledBack
    /// A refresh was in flight when the app stopped; its outcome is unknown.
    case refreshInterrupted
}
