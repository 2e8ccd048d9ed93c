import Foundation

extension ResumeManager {
    /// Signs in to Supabase GoTrue with an e-mail and a password and stores the session: one
    /// call from the login screen to `.home`. Needs a manager made with a `GoTrueRefresher`.
    ///
    /// The password is copied into locked memory at once (it arrives as the app's `String`,
    /// which only the app can drop), goes from there into the request body, and the locked copy
    /// is zeroed when the call returns. It never appears in a log line, an error or a
    /// description. Sign-ins in this process take turns: a second one waits for the first to
    /// finish. The session replaces the current one under the same write lock as
    /// `Vault.store`, but only if no other session was stored (or signed out) while the request
    /// was under way, here or in another process: then the newer state stays and this call
    /// throws `.superseded`. A sign-in is the `signedIn` session event and sets a waiting
    /// auto-refresh loop going.
    ///
    /// - Parameters:
    ///   - email: the user's e-mail address.
    ///   - password: the user's password.
    ///   - biometricEnabled: the unlock preference to store with the session; nil keeps the
    ///     device's current preference (offer the opt-in afterwards with `Vault.setBiometricUnlock`).
    /// - Returns: the stored session.
    /// - Throws: `.invalidCredentials`, `.rateLimited(retryAfter:)` (seed 001: 5 attempts per
    ///   5 minutes), `.network`, `.serverError`, `.clientRejected`, `.rejected`,
    ///   `.invalidResponse` (a body the vault refuses), `.superseded`, `.vault`, or
    ///   `.unsupported` when the manager's refresher is not a `GoTrueRefresher`.
    @discardableResult
    public func signIn(email: String, password: String, biometricEnabled: Bool? = nil) async throws(SignInError) -> Session {
        guard let goTrue = refresher as? GoTrueRefresher else {
            throw .unsupported("signIn(email:password:) needs a manager made with a GoTrueRefresher")
        }
        var bytes = Array(password.utf8)
        let secret: SecretBytes
        do { secret = try SecretBytes(consuming: &bytes) } catch { throw .vault(.crypto(error)) }
        defer { secret.zero() }
        return try await performSignIn(identity: nil, biometricEnabled: biometricEnabled) { (prover) async throws(SignInError) in
            try await goTrue.passwordSignIn(email: email, password: secret, prover: prover).tokens
        }
    }

    /// The part every sign-in shares: take this process's turn, note the current session,
    /// make the proof key when DPoP is on (before the request: the server binds the tokens to
    /// it), run `exchange` (the one request to the token endpoint) with its prover, check that
    /// the tokens came back bound, store the answer with the key only if the noted session is
    /// still current, and wake the auto-refresh loop.
    func performSignIn(
        identity: SessionIdentity?, biometricEnabled: Bool?,
        exchange: @Sendable (DPoPProver?) async throws(SignInError) -> RefreshedTokens
    ) async throws(SignInError) -> Session {
        await signInTurn.take()
        defer { signInTurn.give() }
        let vault: Vault
        let expected: ExpectedCurrentSession
        do {
            vault = try self.vault
            expected = ExpectedCurrentSession(try await vault.currentSession()?.id)
        } catch {
            throw .vault(error)
        }
        var proofKey: NewProofKey?
        var prover: DPoPProver?
        if let dpop {
            do throws(ProofKeyError) {
                let key = try await dpop.keyProvider.makeKey()
                let recorded = try? await vault.recordedServerClockOffset()
                guard
                    let made = DPoPProver(
                        key: key, nonces: dpop.nonces, clock: clock, serverClock: dpop.serverClock,
                        recordedClockOffset: recorded)
                else { throw ProofKeyError.failed("the new key is not a P-256 key") }
                proofKey = NewProofKey(stored: try key.storedForm(), thumbprint: made.thumbprint)
                prover = made
            } catch {
                throw .proofKey(error)
            }
        }
        let refreshed = try await exchange(prover)
        guard acceptsTokenType(refreshed.response.tokenType, provedWith: prover) else {
            throw .invalidResponse("token_type \(SignInError.errorCode(refreshed.response.tokenType)) answered a DPoP proof (bearer downgrade refused)")
        }
        // Accepted bearer tokens are not bound to the key: the session is stored without it.
        if !DPoPConfiguration.isBound(refreshed.response.tokenType) { proofKey = nil }
        var response = refreshed.response
        if let identity {
            do { response = try response.identified(as: identity) } catch { throw .invalidResponse(error.description) }
        }
        let offset = refreshed.serverDate.map { $0.timeIntervalSince(clock()) }
        let session: Session
        switch await Self.storingSignIn(
            vault, response, biometricEnabled: biometricEnabled, serverClockOffset: offset, expected: expected,
            proofKey: proofKey)
        {
        case .success(let stored): session = stored
        case .failure(.staleSession):
            logger.info("sign-in dropped: another session was stored meanwhile", metadata: ["vault.operation": "signIn"])
            throw .superseded
        case .failure(.invalidTokenResponse(let error)): throw .invalidResponse(error.description)
        case .failure(let error): throw .vault(error)
        }
        logger.info(
            "signed in",
            metadata: [
                "vault.operation": "signIn", "session.id": "\(session.id)",
                "token.fp": "\(session.refreshTokenFingerprint?.hex ?? "-")"
            ])
        // A new sign-in is a fresh start for its own refreshes: another session's 429 or failures
        // do not hold it back (the vault dropped its record in the same store).
        rateLimit = nil
        backoff.reset()
        wakeAutoRefresh(after: .home(session))
        return session
    }

    /// The conditional store as a value (a typed `catch` across actors trips the compiler).
    private static func storingSignIn(
        _ vault: Vault, _ response: TokenResponse, biometricEnabled: Bool?, serverClockOffset: TimeInterval?,
        expected: ExpectedCurrentSession, proofKey: NewProofKey?
    ) async -> Result<Session, VaultError> {
        do {
            return .success(
                try await vault.store(
                    response, biometricEnabled: biometricEnabled, serverClockOffset: serverClockOffset,
                    onlyIf: expected, proofKey: proofKey))
        } catch {
            return .failure(error)
        }
    }
}

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
    public func signIn(
        completing request: AuthorizationRequest, redirect: URL, identity: SessionIdentity? = nil,
        biometricEnabled: Bool? = nil
    ) async throws(SignInError) -> Session {
        let code = try request.code(from: redirect)
        defer { request.finish() }
        let now = clock()
        let flow = request.flow
        return try await performSignIn(identity: identity, biometricEnabled: biometricEnabled) { (prover) async throws(SignInError) in
            try await flow.exchange(code: code, for: request, now: now, prover: prover)
        }
    }
}
