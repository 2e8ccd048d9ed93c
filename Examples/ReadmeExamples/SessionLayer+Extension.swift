import SessionVault

extension SessionLayer {
    /// In a widget, an intent or a notification service: a token for background work. The
    /// session's rules hold (sign-out, expiry, a server's 429, one refresh per due token); the
    /// app's idle lock does not, and nothing here counts as the user's activity.
    func tokenForBackgroundWork() async -> Token? {
        guard case .token(let token, _) = await manager.backgroundAccessToken() else { return nil }
        return token
    }
}
