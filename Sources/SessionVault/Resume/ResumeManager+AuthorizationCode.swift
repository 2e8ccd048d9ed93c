import Foundation

extension ResumeManager {
    /// Completes an authorization-code sign-in from the redirect the browser returned: checks
    /// the redirect (`state`, an error such as `access_denied`), exchanges the code with the
    /// request's PKCE verifier at `AuthorizationCodeFlow.tokenEndpoint`, checks the ID token if
    /// one comes back (`nonce`, `iss`, `aud`, `exp`; not its signature, see
    /// `AuthorizationCodeFlow`), and stores the session, with the same turns and "a late
    /// sign-in never replaces a newer session" rule as `signIn(email:password:biometricEnabled:)`.
    /// Nothing is stored on any error. The verifier is zeroed when the call ends.
    ///
    /// - Parameters:
    ///   - request: the request whose `url` the browser opened.
    ///   - redirect: the URL the browser was sent back to.
    ///   - identity: who signed in, for a server whose answer does not say (a plain RFC 6749
    ///     response without `sub`); combined as `TokenResponse.identified(as:)` does.
    ///   - biometricEnabled: the unlock preference to store; nil keeps the device's.
    /// - Throws: `.stateMismatch`, `.authorizationDenied`, `.invalidRedirect`,
    ///   `.authorizationAlreadyUsed`, `.codeRejected` (expired, replayed), `.idTokenRejected`,
    ///   and the token endpoint's and vault's errors as for the password sign-in.
    @discardableResult
    public func signIn(completing request: AuthorizationRequest, redirect: URL, identity: SessionIdentity? = nil,
                       biometricEnabled: Bool? = nil) async throws(SignInError) -> Session {
        let code = try request.code(from: redirect)
        defer { request.finish() }
        let now = clock()
        let flow = request.flow
        return try await performSignIn(identity: identity, biometricEnabled: biometricEnabled) { (prover) async throws(SignInError) in
            try await flow.exchange(code: code, for: request, now: now, prover: prover)
        }
    }
}
