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
