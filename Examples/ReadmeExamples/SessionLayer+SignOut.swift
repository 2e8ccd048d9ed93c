import SessionVault

extension SessionLayer {
    /// The sign-out button. The vault is cleared first, whatever the server says (offline too).
    func signOut() async throws -> ServerSignOut {
        let result = try await manager.signOut(scope: .local)   // .global: every device; .others
        // result.endSessionURL: an OIDC server's logout page, for the app to open.
        return result.server   // .ended, .alreadyEnded, .noSession, .failed(detail), .notSupported
    }
}
