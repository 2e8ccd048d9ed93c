import Foundation

extension ResumeManager {
    /// Signs the user out: the vault is cleared first, always (offline too), then the server is
    /// told when the refresher can (`SessionTerminator`): GoTrue `POST /logout?scope=…`, RFC 7009
    /// revocation, and for OIDC an end-session URL for the app to open. What the server says is
    /// reported and audited; it never undoes or delays the local sign-out.
    /// - Throws: only when the local sign-out itself failed (the vault cannot be written now).
    public func signOut(scope: SignOutScope = .local) async throws(VaultError) -> SignOutResult {
        let vault = try openVaultForCall()
        // Kept only for the server call: the vault forgets them in the next step.
        let refreshToken = try await vault.refreshToken()
        let accessToken = try await vault.accessToken()
        let hadSession = try await vault.currentSession() != nil
        try await vault.signOut(reason: .signedOut)
        guard hadSession else { return SignOutResult(server: .noSession, endSessionURL: nil) }
        guard let terminator = refresher as? any SessionTerminator else {
            return SignOutResult(server: .notSupported, endSessionURL: nil)
        }
        let server = await terminator.endServerSession(refreshToken: refreshToken, accessToken: accessToken, scope: scope)
        try? await vault.recordAudit(.serverSignOut, reason: "\(scope.rawValue):\(server.code)")
        logger.info("signed out", metadata: ["signOut.scope": "\(scope.rawValue)", "signOut.server": "\(server.code)"])
        return SignOutResult(server: server, endSessionURL: terminator.endSessionURL())
    }
}
