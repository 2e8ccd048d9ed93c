import Foundation

extension ResumeManager {
    /// How the current session's requests are signed.
    enum SessionProof {
        /// A bearer session (or a manager without DPoP): no proof.
        case none
        /// A DPoP session whose key was found and matches the recorded thumbprint.
        case prover(DPoPProver)
        /// The session cannot go on: its key is lost (the session was ended as
        /// `proofKeyLost`), does not match (corrupted, recovered), or is not available now.
        case stop(ResumeOutcome)
    }

    /// The prover for `session`, checked against what the vault recorded, before anything is
    /// sent with the session's tokens: a lost key ends the session as
    /// `missing(.proofKeyLost(subject:))` without a request; a key whose thumbprint is not the
    /// recorded `jkt` is corruption (recovered, the tombstone says why); a key the provider cannot
    /// reach right now is `unavailable`.
    ///
    /// A manager without a `DPoPConfiguration` cannot sign: for a DPoP-bound session it answers
    /// `unavailable` rather than send the bound tokens without a proof (RFC 9449 §7.2: a bound
    /// token is never a bearer one). The session is kept for a manager that has one.
    func sessionProof(for session: Session, in vault: Vault) async -> SessionProof {
        guard let thumbprint = session.proofKeyThumbprint else { return .none }
        guard let dpop else { return .stop(.unavailable(retryAfter: 60, detail: Self.boundWithoutDPoP)) }
        let stored: StoredProofKey?
        do {
            stored = try await vault.currentProofKey()
        } catch {
            return .stop(await outcome(for: error))
        }
        guard let stored, stored.sessionID == session.id else { return .stop(await outcomeWithoutRefresh(vault)) }
        guard let storedForm = stored.stored else {
            return .stop(await proofKeyLost(vault, session: session, detail: "the vault holds no proof key for the session that opens"))
        }
        let key: any ProofSigningKey
        do {
            key = try await dpop.keyProvider.key(fromStored: storedForm)
        } catch {
            switch error {
            case .lost(let detail): return .stop(await proofKeyLost(vault, session: session, detail: detail))
            case .unavailable(let detail), .failed(let detail):
                return .stop(.unavailable(retryAfter: 1, detail: "the proof key cannot be used right now: \(detail)"))
            }
        }
        let recorded = try? await vault.recordedServerClockOffset()
        guard let prover = DPoPProver(key: key, nonces: dpop.nonces, clock: clock, serverClock: dpop.serverClock, recordedClockOffset: recorded),
            prover.thumbprint == thumbprint
        else {
            let reason = CorruptionReason(.invariantViolation, "session \(session.id): the proof key's thumbprint is not the recorded jkt")
            return .stop(await outcome(for: VaultError.corrupted(reason)))
        }
        return .prover(prover)
    }

    /// Why a manager without a `DPoPConfiguration` does not use a DPoP-bound session.
    static let boundWithoutDPoP = "the session is DPoP-bound and this manager has no DPoPConfiguration: its tokens are not sent without a proof"

    /// Ends `session` because its proof key is gone, keeping its subject in the reason.
    private func proofKeyLost(_ vault: Vault, session: Session, detail: String) async -> ResumeOutcome {
        logger.error("proof key lost; session ended without a request", metadata: ["session.id": "\(session.id)", "dpop.detail": "\(detail)"])
        return await endSession(vault, reason: .proofKeyLost(subject: session.identity.subject), sessionID: session.id)
    }

    /// A DPoP proof for one of the app's own requests with the session's access token (RFC 9449
    /// §7): put the token in `Authorization: DPoP <token>` and this in the `DPoP` header.
    ///
    /// Take the token from `freshAccessToken()` first. A resource server that answers 401 with
    /// `WWW-Authenticate: DPoP error="use_dpop_nonce"` and a `DPoP-Nonce` header wants that
    /// nonce: pass it to `rememberDPoPNonce(_:for:)` and send the request once more with a new
    /// proof (once, not in a loop).
    ///
    /// - Parameters:
    ///   - method: the request's method (`htm`).
    ///   - url: the request's URL (`htu` is it without query and fragment).
    ///   - accessToken: the access token the request carries (`ath`).
    /// - Returns: the `DPoP` header's value; nil only for a bearer session (send
    ///   `Authorization: Bearer <token>` then).
    /// - Throws: `.lost` when the session's key is gone (the session is ended as
    ///   `proofKeyLost`), `.unavailable` when no session can be read now (or none is signed in),
    ///   or the session is DPoP-bound and this manager has no `DPoPConfiguration`, or its key
    ///   cannot be used now; `.failed` when the key does not match the session (the vault is
    ///   recovered). Never nil for a session that was not read: a vault that cannot be read now
    ///   is no bearer session.
    public func dpopProof(method: String, url: URL, accessToken: Token) async throws(ProofKeyError) -> String? {
        let vault: Vault, read: Session?
        do {
            vault = try self.vault
            read = try await vault.currentSession()
        } catch {
            throw .unavailable("the session cannot be read now: \(error)")
        }
        guard let session = read else { throw .unavailable("no session is signed in") }
        switch await sessionProof(for: session, in: vault) {
        case .none: return nil
        case .prover(let prover): return try prover.proof(method: method, url: url, accessToken: accessToken)
        case .stop(let outcome):
            if case .login(.proofKeyLost, _) = outcome { throw .lost("the session's proof key is gone; sign in again") }
            if case .unavailable(_, let detail) = outcome { throw .unavailable(detail) }
            throw .failed("the session cannot make proofs: \(outcome)")
        }
    }

    /// Remembers a server's `DPoP-Nonce` (from any answer of a resource server) for the next
    /// proofs to it, in this process.
    public func rememberDPoPNonce(_ nonce: String, for url: URL) {
        dpop?.nonces.remember(nonce, for: url, server: .resource)
    }

    /// Reads a resource server's refusal for what one more try with a new proof from
    /// `dpopProof(method:url:accessToken:)` can answer: RFC 9449's nonce challenge (§9: a 401
    /// whose `WWW-Authenticate` says `use_dpop_nonce`, with a `DPoP-Nonce` header; the nonce is
    /// remembered), or a proof refused as `invalid_dpop_proof` that was dated more than a few
    /// seconds away from the server's `Date` (the device's clock changed since the offset was
    /// measured; the answer's `Date` re-dates the next proofs). Call it for the first answer only:
    /// a second refusal is the server's final word, never a loop. Any `DPoP-Nonce` is remembered.
    ///
    /// - Parameters:
    ///   - status: the answer's status code.
    ///   - wwwAuthenticate: its `WWW-Authenticate` header.
    ///   - dpopNonce: its `DPoP-Nonce` header.
    ///   - date: its `Date` header (without one, a proof refused for its date is re-dated by the
    ///     device's own clock).
    ///   - url: the request's URL (the nonce belongs to its server).
    /// - Returns: true when the request should be retried once with a new proof.
    ///
    /// No retry for a nonce a proof cannot carry, for the nonce remembered already (the proof
    /// that was refused carried it: the same request again would be refused again), or for a
    /// refused proof whose date was right.
    public func takeDPoPChallenge(status: Int, wwwAuthenticate: String?, dpopNonce: String?, date: String? = nil, for url: URL) -> Bool {
        guard let dpop else { return false }
        var retry = false
        if let dpopNonce {
            let previous = dpop.nonces.nonce(for: url, server: .resource)
            if dpop.nonces.remember(dpopNonce, for: url, server: .resource), dpopNonce != previous {
                retry = HTTPRefreshTransport.asksForNonce(status: status, body: Data(), wwwAuthenticate: wwwAuthenticate)
            }
        }
        if HTTPRefreshTransport.refusesProof(status: status, body: Data(), wwwAuthenticate: wwwAuthenticate) {
            let now = clock()
            let serverDate = date.flatMap(HTTPRefreshTransport.parseHTTPDate) ?? now
            if dpop.serverClock.measure(serverDate: serverDate, deviceNow: now, server: .resource) { retry = true }
        }
        return retry
    }

    /// Whether tokens that came back for a request that carried a proof may be kept: bound
    /// (`DPoP`), or a bearer downgrade the configuration accepts (logged).
    func acceptsTokenType(_ tokenType: String, provedWith prover: DPoPProver?) -> Bool {
        guard let dpop, prover != nil, !DPoPConfiguration.isBound(tokenType) else { return true }
        logger.warning(
            "the server answered a DPoP proof with bearer tokens",
            metadata: [
                "dpop.tokenType": "\(SignInError.errorCode(tokenType))", "dpop.accepted": "\(dpop.acceptsBearerDowngrade)"
            ])
        return dpop.acceptsBearerDowngrade
    }
}
