import Foundation

/// The refresh: one flight per process (concurrent callers share its outcome), one holder of
/// the refresh lock across processes (the one that may spend the refresh token), waiting for
/// another holder's result instead of sending the token twice, and settling a failed refresh
/// (backoff, a server's 429 honoured by every process, a refusal that ends the session).
extension ResumeManager {
    /// Refreshes now (single-flight), e.g. from a background task, whether or not the access
    /// token is due: the one call that may refresh a token the server has just issued. A
    /// server's 429 is still honoured (`.offline` until its `retry_after` has passed, without a
    /// request). On failure the outcome's `retryAfter` carries the delay for the next attempt.
    public func refreshNow() async -> ResumeOutcome {
        if let pending = await storeUnsavedRotation() { return pending }
        do {
            let vault = try self.vault
            guard let session = try await vault.currentSession() else { return await resume() }
            return await refresh(expected: session)
        } catch {
            return await outcome(for: error)
        }
    }

    /// Refreshes until it succeeds, the session ends, or `maxAttempts` attempts were made,
    /// waiting between attempts as long as the last `.offline` outcome says (the server's
    /// `retry_after`, or exponential backoff with jitter). A failure never stops later refreshes:
    /// the next call starts again. Returns early, with the last outcome, if the task is cancelled.
    public func refreshInBackground(maxAttempts: Int = 5) async -> ResumeOutcome {
        var outcome = await refreshNow()
        var attempts = 1
        while case .offline(_, let retryAfter) = outcome, attempts < maxAttempts, !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(max(0, min(retryAfter, 3600)) * 1_000_000_000))
            if Task.isCancelled { break }
            outcome = await refreshNow()
            attempts += 1
        }
        return outcome
    }

    /// The refresh of `session` with no unlock before it (`backgroundAccessToken()`).
    func refreshForBackground(_ session: Session) async -> ResumeOutcome {
        if let pending = await storeUnsavedRotation() { return pending }
        return await refresh(expected: session)
    }

    /// After an unlock (which counts as activity) an idle session whose access token is still
    /// alive is valid again: no network call is needed for it.
    /// Runs inside a flight: must not start another one (it would wait on itself).
    func performRefreshUnlessValidAgain(_ vault: Vault, session: Session) async -> ResumeOutcome {
        if case .valid(let current)? = try? await vault.resumePath() {
            // Valid again, but a DPoP session only with its key (as `carryOut` checks).
            if case .stop(let stopped) = await sessionProof(for: current, in: vault) { return stopped }
            return .home(current)
        }
        return await performRefresh(expected: session)
    }

    /// Single-flight: callers during one refresh share its outcome.
    func refresh(expected session: Session) async -> ResumeOutcome {
        await singleFlight { await self.performRefresh(expected: session) }
    }

    /// Runs `operation` unless one is already in flight, in which case its outcome is shared.
    /// `operation` itself must never call `singleFlight` (it would await its own task).
    func singleFlight(_ operation: @escaping @Sendable () async -> ResumeOutcome) async -> ResumeOutcome {
        if let inFlight { return await inFlight.value }
        let task = Task { await operation() }
        inFlight = task
        let outcome = await task.value
        inFlight = nil
        return outcome
    }

    func performRefresh(expected session: Session) async -> ResumeOutcome {
        guard let vault = openedVault else { return .unavailable(retryAfter: 1, detail: "the vault is not open") }
        do {
            // Someone (this process earlier, or another one) may have refreshed already.
            if let current = try await vault.currentSession(), current.id == session.id, current.tokenVersion > session.tokenVersion {
                return .home(current)
            }
            let lock = try refreshLock(for: vault)
            guard try lock.tryLock() else { return try await waitForOtherRefresh(vault, session: session, lock: lock) }
            // Kept while a rotation waits in memory for space: see `unsavedRotation`.
            defer { if unsavedRotation == nil { lock.unlock() } }
            return try await refreshHoldingLock(vault, session: session)
        } catch VaultError.staleSession {
            // The session was signed out or replaced while we refreshed: report what is there now.
            return await outcomeWithoutRefresh(vault)
        } catch {
            return await outcome(for: error)
        }
    }

    /// The refresh itself, run only by the holder of the refresh lock: the one process (and
    /// manager) that may spend the refresh token, however long its request takes or its process
    /// is paused.
    func refreshHoldingLock(_ vault: Vault, session: Session) async throws -> ResumeOutcome {
        // The previous holder may have rotated (or signed out) just before it let go.
        guard let current = try await vault.currentSession(), current.id == session.id else { return await outcomeWithoutRefresh(vault) }
        if current.tokenVersion > session.tokenVersion { return .home(current) }
        // A server's 429, seen here or recorded by another process: no request until it passed.
        if let wait = try await refreshDeferral(vault, sessionID: current.id) {
            logger.notice("refresh deferred by the server's rate limit", metadata: ["refresh.retryAfter": "\(wait)"])
            return .offline(current, retryAfter: wait)
        }
        // The proof key first: a session whose key is gone sends nothing (its tokens are bound
        // to that key), and the check is made under the lock, on the session about to refresh.
        let prover: DPoPProver?
        switch await sessionProof(for: current, in: vault) {
        case .none: prover = nil
        case .prover(let found): prover = found
        case .stop(let outcome): return outcome
        }
        // A mark left by a holder that died: the server may have spent the token already.
        let interrupted = current.refreshPendingSince != nil
        // Durable, and it takes the space the rotation will need: a full disk fails here, before
        // the token is sent, never after the server has spent it.
        try await vault.markRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion)
        guard let token = try await vault.refreshToken() else { return await outcomeWithoutRefresh(vault) }
        let refreshed: RefreshedTokens
        do {
            refreshed = try await refresher.refresh(using: token, prover: prover)
        } catch {
            return await settleFailedRefresh(vault, session: session, error: error, interrupted: interrupted)
        }
        guard acceptsTokenType(refreshed.response.tokenType, provedWith: prover) else {
            // The server spent the bound refresh token and sent bearer ones the policy refuses.
            return await endSession(vault, reason: .refreshRejected, sessionID: session.id, version: session.tokenVersion)
        }
        let offset = refreshed.serverDate.map { $0.timeIntervalSince(clock()) }
        let rotation = await Self.rotating(vault, refreshed, sessionID: session.id, version: session.tokenVersion, serverClockOffset: offset)
        if case .failure(let error) = rotation, Self.mayStoreLater(error) {
            // The server has spent the old token: the new ones are all the session has. Keep
            // them in locked memory, keep the refresh lock, and write them on the next call.
            unsavedRotation = UnsavedRotation(
                sessionID: session.id, version: session.tokenVersion, refreshed: refreshed, serverClockOffset: offset,
                prover: prover)
            logger.error(
                "rotated tokens could not be stored now; kept in memory until they can be",
                metadata: ["session.id": "\(session.id)", "error": "\(error)"])
            return .home(current)
        }
        guard case .success(let stored) = rotation else {
            if case .failure(.subjectMismatch) = rotation {
                // Terminal: retrying would spend another refresh token on every attempt.
                logger.error("refresh answered for another subject; session ended", metadata: ["session.id": "\(session.id)"])
                return await endSession(vault, reason: .refreshedForAnotherSubject, sessionID: session.id, version: session.tokenVersion)
            }
            // Signed out (or replaced) while the request was out: the server holds a session
            // for these new tokens; end it rather than drop them (a sign-out must end what it can).
            if case .failure(.staleSession) = rotation { await endOrphanedRotation(vault, refreshed, sessionID: session.id, prover: prover) }
            if case .failure(let error) = rotation { throw error }
            return await outcomeWithoutRefresh(vault)
        }
        backoff.reset()
        rateLimit = nil
        // The server just answered: after a clock that moved back, now is the reference again
        // (one rollback costs this one refresh, not one per call until the clock catches up).
        try? await vault.reanchorClockIfMovedBack(userPresent: false)
        logger.info("session refreshed", metadata: ["session.id": "\(stored.id)", "token.fp": "\(stored.refreshTokenFingerprint?.hex ?? "-")"])
        return .home(stored)
    }

    /// The rotate of a refresh result, as a value (a typed `catch` here trips the compiler).
    /// Whether a rotation's write failed for a reason that passes (a full disk, a busy or
    /// locked store, an I/O error), so that its tokens are kept in memory and written later,
    /// rather than dropped: the server has spent the refresh token the vault still holds, and
    /// sending that one again would be a reuse that ends the session. Damage is not one of
    /// them (recovery decides), nor a session that is gone or another's.
    static func mayStoreLater(_ error: VaultError) -> Bool {
        switch error {
        case .storageFull, .unavailable, .io: return true
        default: return false
        }
    }

    static func rotating(
        _ vault: Vault, _ refreshed: RefreshedTokens, sessionID: String, version: Int64,
        serverClockOffset: TimeInterval?
    ) async -> Result<Session, VaultError> {
        do {
            return .success(
                try await vault.rotate(
                    refreshed.response, expectedSessionID: sessionID, expectedVersion: version,
                    serverClockOffset: serverClockOffset))
        } catch {
            return .failure(error)
        }
    }

    func settleFailedRefresh(_ vault: Vault, session: Session, error: RefreshError, interrupted: Bool) async -> ResumeOutcome {
        logger.notice("refresh failed", metadata: ["refresh.error": "\(error)"])
        switch error {
        case .clientRejected:
            // The app's client configuration is wrong, not the session: keep the tokens (the
            // server never judged them), say so, and do not report it as offline.
            if !interrupted { try? await vault.clearRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion) }
            return .unavailable(retryAfter: backoff.nextDelay(), detail: "\(error): the app's OAuth client is misconfigured; tokens kept")
        case .invalidGrant, .sessionExpired, .authRequired, .invalidScope:
            // A refusal may only mean that someone else spent this token: an app or extension
            // that stored its own refresh without our lock (a second runtime, an older library).
            // If the vault moved on meanwhile, carry on with what it holds now.
            if let current = try? await vault.currentSession(), current.id == session.id, current.tokenVersion > session.tokenVersion {
                return .home(current)
            }
            let reason: MissingReason
            switch error {
            case .sessionExpired: reason = .sessionExpired
            case .authRequired: reason = .authRequired
            case .invalidScope: reason = .scopeRejected
            default: reason = interrupted ? .refreshInterrupted : .refreshRejected
            }
            return await endSession(vault, reason: reason, sessionID: session.id, version: session.tokenVersion)
        case .rateLimited(let retryAfter):
            if !interrupted { try? await vault.clearRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion) }
            _ = backoff.nextDelay()
            // A custom refresher may hand over any number: bounded like a server's.
            let delay = AuthErrorBody.boundedDelay(retryAfter) ?? 60
            // Kept for this process, and in the vault for the others.
            let now = clock()
            rateLimit = (now, delay, session.id)
            try? await vault.deferRefreshes(until: now.addingTimeInterval(delay), wait: delay)
            return .offline(session, retryAfter: delay)
        case .proofRejected:
            // About the proof, never the grant (a server checks the proof first, RFC 9449 §5):
            // the tokens stay; the next attempt sends a new proof. Not offline: the server
            // answered; the transport already re-dated or took the nonce once.
            if !interrupted { try? await vault.clearRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion) }
            return .unavailable(retryAfter: backoff.nextDelay(), detail: "\(error); tokens kept")
        case .refusedUnexplained:
            return await settleUnexplainedRefusal(vault, session: session, error: error, interrupted: interrupted)
        case .serverUnavailable, .network, .invalidResponse:
            if !interrupted { try? await vault.clearRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion) }
            return .offline(session, retryAfter: backoff.nextDelay())
        }
    }

    /// A refusal that names no verdict on the grant: recorded (its first time kept for every
    /// process and launch), answered as `.renewalRefused`, and the session ended only when such
    /// a refusal comes `policy.refusalLimit` or more after the first one. A clock moved back
    /// never counts as time passed (the elapsed time is then taken as none).
    func settleUnexplainedRefusal(_ vault: Vault, session: Session, error: RefreshError, interrupted: Bool) async -> ResumeOutcome {
        let recorded: Session?
        do {
            recorded = try await vault.recordRefreshRefused(sessionID: session.id, expectedVersion: session.tokenVersion, keepPending: interrupted)
        } catch {
            return await outcome(for: error)
        }
        guard let recorded, let since = recorded.refreshRefusedSince else {
            // The session moved on meanwhile (rotated elsewhere, replaced, signed out).
            return await outcomeWithoutRefresh(vault)
        }
        let elapsed = max(0, clock().timeIntervalSince(since))
        if policy.refusalLimit.isFinite, elapsed >= max(0, policy.refusalLimit) {
            logger.notice(
                "refresh refused without a verdict past the refusal limit; session ended",
                metadata: ["session.id": "\(session.id)", "refresh.error": "\(error)"])
            return await endSession(vault, reason: .refreshRejected, sessionID: recorded.id, version: recorded.tokenVersion)
        }
        return .renewalRefused(recorded, since: since, retryAfter: backoff.nextDelay())
    }

    /// How long no refresh may be sent yet (a 429's `retry_after`, from this process or recorded
    /// in the vault by another); nil when one may be sent now. Never longer than the server
    /// asked, whatever the clock did: this process's record counts down on its clock, and when
    /// the clock moved back behind it, it gives way to the vault's, which counts what was left
    /// from the latest time the vault saw (`Vault.refreshDeferral()`).
    func refreshDeferral(_ vault: Vault, sessionID: String) async throws(VaultError) -> TimeInterval? {
        let now = clock()
        var wait: TimeInterval = 0
        if let rateLimit {
            let elapsed = now.timeIntervalSince(rateLimit.at)
            let remaining = rateLimit.delay - elapsed
            if elapsed >= 0, remaining > 0, rateLimit.sessionID == sessionID { wait = remaining } else { self.rateLimit = nil }
        }
        if let remaining = try await vault.refreshDeferral() { wait = max(wait, remaining) }
        return wait > 0 ? wait : nil
    }

    /// Another process (or manager) holds the refresh lock: wait for its result to land in the
    /// file instead of spending the same refresh token. The lock comes free when the holder is
    /// done or dies (the kernel releases it), and then this manager carries on under it. Past
    /// `refreshWaitLimit` the answer is `.offline`: the token is never sent while another holds
    /// the lock, however long that holder is paused.
    func waitForOtherRefresh(_ vault: Vault, session: Session, lock: FileLock) async throws -> ResumeOutcome {
        // Measured on the monotonic clock: the injected wall clock may stand still in tests.
        let start = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(max(0, min(refreshWaitLimit, 3600)) * 1_000_000_000)
        while true {
            guard let current = try await vault.currentSession(), current.id == session.id else { return await outcomeWithoutRefresh(vault) }
            if current.tokenVersion > session.tokenVersion { return .home(current) }
            if try lock.tryLock() {
                defer { if unsavedRotation == nil { lock.unlock() } }
                return try await refreshHoldingLock(vault, session: session)
            }
            if DispatchTime.now().uptimeNanoseconds &- start >= limit {
                logger.notice("refresh still held elsewhere; not sending the token", metadata: ["session.id": "\(session.id)"])
                return .offline(session, retryAfter: 1)
            }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// This manager's handle on the vault's refresh lock file, opened on first use (sign-out
    /// takes it too, see `ResumeManager+SignOut.swift`).
    func refreshLock(for vault: Vault) throws(VaultError) -> FileLock {
        if let openedRefreshLock, openedRefreshLock.path == vault.files.refreshLock { return openedRefreshLock }
        do {
            let lock = try FileLock(path: vault.files.refreshLock)
            openedRefreshLock = lock
            return lock
        } catch {
            // Something planted where the lock file belongs does not go away by waiting.
            if error.isNotRegularFile || error.errno == ELOOP {
                throw .misconfigured("the refresh lock \(vault.files.refreshLock) is not a regular file: \(error)")
            }
            throw .unavailable(retryAfter: 1, detail: "the refresh lock cannot be opened: \(error)")
        }
    }

    /// Lets go of the refresh lock a stored-late rotation kept (see `unsavedRotation`).
    func releaseRefreshLock() { openedRefreshLock?.unlock() }
}
