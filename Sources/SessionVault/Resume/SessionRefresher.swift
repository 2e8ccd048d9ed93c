/// Exchanges a refresh token for new tokens at the authorization server.
/// SessionVault ships `GoTrueRefresher` and `OAuth2Refresher`.
public protocol SessionRefresher: Sendable {
    /// Sends the refresh token once. Implementations must not retry on their own: a rotating
    /// refresh token dies on second use, and retries are the `ResumeManager`'s decision.
    func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens
}
