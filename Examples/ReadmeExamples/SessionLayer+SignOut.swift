import SessionVault

extension SessionLayer {
    /// The sign-out button. The vault is cleared first, whatever the server says (offline too).
    func signOut() async throws -> ServerSignOut {
        let result = try await manager.signOut(scope: .local)   // .global: every device; .others: the other devices, this one stays signed in
        // result.endSessionURL: an OIDC server's logout page (with the ID token as id_token_hint), for the app to open.
        // result.serverSessionMayOutlive: true unless the server confirmed the session is gone.
        return result.server   // .ended, .alreadyEnded, .noSession, .accessTokenRejected, .clientRejected(code), .failed(detail), .notSupported
    }
}
