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

extension ExpiryReason {
    /// Whether this reason asks for the user (an unlock) before a token is used again.
    ///
    /// `idle` always does. `clockRolledBack` does whenever the policy has an idle timeout: a
    /// clock that moved back cannot show that the user was active recently, so it locks at least
    /// as often as the true clock would (an idle timeout the clock skipped is still enforced).
    public func requiresUnlock(under policy: ResumePolicy) -> Bool {
        switch self {
        case .idle: return true
        case .clockRolledBack: return policy.idleTimeout != nil
        case .accessTokenExpired, .accessTokenExpiringSoon, .noAccessToken, .refreshInterrupted: return false
        }
    }
}
