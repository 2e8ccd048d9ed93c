import Foundation
import Logging

/// Decides and carries out the resume path on every launch and every return from background,
/// hands out fresh access tokens for API calls, and signs out: the one object an app talks to.
///
/// It uses one vault per process: either its own (`init(path:keyProvider:refresher:…)` opens
/// it on first use and reopens it after a recovery wipe) or one the app opened
/// (`init(vault:refresher:…)` borrows it, with its policy, clock and logger). Reach that vault
/// through `vault` to store a sign-in; never open the same file a second time.
///
/// `resume()` decides the path with `ResumeDecision`, and for `expired` unlocks (biometric if
/// enabled), refreshes through the injected `SessionRefresher` and stores the rotated tokens
/// durably before returning home. Refreshes are single-flight: any number of concurrent callers
/// in this process share one network call, and across processes (and other managers) the
/// refresh lock beside the vault file (an `flock` the kernel releases when its holder dies,
/// never on a timer) lets only one of them spend the refresh token.
public actor ResumeManager {
    private let path: String
    /// Nil for a manager that borrows an open vault: read from it at recovery time.
    private var keyProvider: (any KeyProvider)?
    private var openedVault: Vault?
    let refresher: any SessionRefresher
    let biometrics: (any BiometricGate)?
    let policy: ResumePolicy
    let clock: @Sendable () -> Date
    let logger: Logger
    /// This manager's handle on the refresh lock file (see `FileLock`), opened on first refresh.
    private var openedRefreshLock: FileLock?
    /// How long a resume waits for another process's refresh before it answers `.offline`
    /// (never sending the token itself while the other holds the refresh lock).
    public let refreshWaitLimit: TimeInterval
    private var inFlight: Task<ResumeOutcome, Never>?
    /// The foreground auto-refresh loop (see `startAutoRefresh`), and which start it belongs to.
    var autoRefresh: Task<Void, Never>?
    var autoRefreshGeneration: UInt64 = 0
    private var backoff: RetryBackoff
    /// A server's 429 in this process: when it came (on the manager's clock) and how long it
    /// asked to wait. The vault keeps the same for other processes (`Vault.deferRefreshes`).
    private var rateLimit: (at: Date, delay: TimeInterval)?
    /// A refresh the server answered whose rotated tokens could not be written yet (the disk was
    /// full at the commit): kept in locked memory, handed to API calls, and written before
    /// anything else is done. The refresh lock stays held meanwhile, so no process sends the
    /// refresh token the server has already spent.
    var unsavedRotation: UnsavedRotation?
    /// Wakes the auto-refresh loop when it waits for a session (sign-in) or an unlock.
    var autoRefreshWake: AsyncStream<Void>.Continuation?
    /// Sign-ins in this process take turns (see `ResumeManager+SignIn.swift`).
    nonisolated let signInTurn = SignInTurn()
    /// Sender-constrained sessions (DPoP); nil: bearer sessions, as before.
    let dpop: DPoPConfiguration?

    /// A manager that owns the vault at `path`: it opens it on first use (`resume()`, `vault`,
    /// any call) and reopens it after a recovery wipe. Create one per process and keep it.
    ///
    /// - Parameters:
    ///   - path: the database file, e.g. in Application Support or an app group container.
    ///   - keyProvider: where the root key comes from (`KeyFileProvider`, your Keychain
    ///     provider, `InMemoryKeyProvider` in tests).
    ///   - refresher: talks to your authorization server (`GoTrueRefresher`, `OAuth2Refresher`,
    ///     or your own `SessionRefresher`).
    ///   - biometrics: the platform's biometric prompt; nil when the app has none.
    ///   - policy: lifetimes, idle timeout, biometric prompting (see `ResumePolicy`).
    ///   - clock: the time every decision uses; tests move it by hand.
    ///   - logger: where the vault and the manager log (never a token); silent by default.
    ///   - refreshWaitLimit: how long to wait for another process's refresh (seconds).
    ///   - backoff: the delays between failed refreshes.
    ///   - dpop: sender-constrained sessions (DPoP, RFC 9449): proof keys and proofs on every
    ///     token request; nil (the default) keeps bearer sessions.
    public init(path: String, keyProvider: any KeyProvider, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
                policy: ResumePolicy = .standard, clock: @escaping @Sendable () -> Date = { Date() },
                logger: Logger = Vault.silentLogger, refreshWaitLimit: TimeInterval = 10, backoff: RetryBackoff = RetryBackoff(),
                dpop: DPoPConfiguration? = nil) {
        self.path = path
        self.keyProvider = keyProvider
        self.refresher = refresher
        self.biometrics = biometrics
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.refreshWaitLimit = refreshWaitLimit
        self.backoff = backoff
        self.dpop = dpop
    }

    /// A manager that borrows a vault the app opened (`Vault.open`): it uses that vault's
    /// policy, clock and logger, so they are given once, to `Vault.open`. After a recovery wipe
    /// the same `Vault` is reopened in place.
    ///
    /// `dpop`: sender-constrained sessions, as for `init(path:keyProvider:refresher:…)`.
    public init(vault: Vault, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
                refreshWaitLimit: TimeInterval = 10, backoff: RetryBackoff = RetryBackoff(), dpop: DPoPConfiguration? = nil) {
        self.path = vault.files.database
        self.keyProvider = nil
        self.openedVault = vault
        self.refresher = refresher
        self.biometrics = biometrics
        self.policy = vault.policy
        self.clock = vault.clock
        self.logger = vault.logger
        self.refreshWaitLimit = refreshWaitLimit
        self.backoff = backoff
        self.dpop = dpop
    }

    /// The vault this manager uses, opened if it is not open yet: the one place to store a
    /// sign-in (`try await manager.vault.store(response)`) and to read or change what it holds.
    ///
    /// - Throws: what `Vault.open` throws. On `.corrupted` or `.unavailable`, call `resume()`:
    ///   it recovers or reports when to retry.
    public var vault: Vault {
        get throws(VaultError) { try openVault() }
    }

    /// The open vault, opening it if needed; nil when it cannot be opened now.
    func currentVault() -> Vault? { try? openVault() }

    /// For the extensions in other files: the vault, opened if needed.
    func openVaultForCall() throws(VaultError) -> Vault { try openVault() }

    /// For the extensions in other files: the vault if it is open.
    func openedVaultForCall() -> Vault? { openedVault }

    /// For the extensions in other files: the outcome of what the vault holds, no refresh.
    func outcomeWithoutRefreshForCall(_ vault: Vault) async -> ResumeOutcome { await outcomeWithoutRefresh(vault) }

    /// For the extensions in other files: an error as an outcome (recovering when corrupted).
    func outcomeForError(_ error: any Error) async -> ResumeOutcome { await outcome(for: error) }

    /// Decides the path and carries it out.
    public func resume() async -> ResumeOutcome {
        // A refresh is already deciding this launch's outcome: share it without another read.
        if let inFlight { return await inFlight.value }
        if let pending = await storeUnsavedRotation() { return pending }
        let vault: Vault
        let path: ResumePath
        do {
            vault = try openVault()
            path = try await vault.resumePath()
        } catch {
            return await outcome(for: error)
        }
        logger.debug("resume path decided", metadata: ["resume.path": "\(path.name)", "resume.reason": "\(path.reason)"])
        return await carryOut(path, in: vault, attempt: 0)
    }

    /// Carries out a decided path: the one place `resume()` and a decision taken again after a
    /// recovery found the files changed (`decideAgain`) act on it.
    private func carryOut(_ path: ResumePath, in vault: Vault, attempt: Int) async -> ResumeOutcome {
        switch path {
        case .valid(let session):
            // A session whose proof key is gone cannot use its access token either.
            if case .stop(let outcome) = await sessionProof(for: session, in: vault) { return outcome }
            try? await vault.touch()
            return .home(session)
        case .missing(let reason):
            return await endSession(vault, reason: reason)
        case .corrupted(let reason):
            return await recover(from: reason, attempt: attempt)
        case .unavailable(let retryAfter, let detail):
            return .unavailable(retryAfter: retryAfter, detail: detail)
        case .expired(let session, let reason):
            // Decided again from inside a refresh (a corruption met by it): another flight would
            // wait on itself, so the caller retries, as `outcomeWithoutRefresh` answers.
            if attempt > 0, inFlight != nil { return .offline(session, retryAfter: backoff.nextDelay()) }
            // Unlock and refresh as one flight: concurrent resumes share one prompt, not only
            // one network call.
            let outcome = await singleFlight {
                if let unlocked = await self.unlock(vault, session: session, reason: reason) { return unlocked }
                return await self.performRefreshUnlessValidAgain(vault, session: session)
            }
            // A launch (or return) that reached home is the user's activity.
            if case .home = outcome { try? await vault.touch() }
            wakeAutoRefresh(after: outcome)
            return outcome
        }
    }

    /// Continues after the app's own PIN or password screen accepted the user (following a
    /// `.locked` outcome): refreshes and goes home.
    ///
    /// The manager takes the app's word for it: it has no proof of its own that the user passed
    /// the app's screen. An app without such a screen sets `ResumePolicy.idleTimeout` to nil
    /// instead of calling this unchecked. An unlock is activity, and after a clock that moved
    /// back it makes the current time the vault's reference again.
    public func resumeAfterUnlock() async -> ResumeOutcome {
        guard let vault = openedVault else { return await resume() }
        if let pending = await storeUnsavedRotation() { return pending }
        do {
            guard let session = try await vault.currentSession() else { return await resume() }
            try await vault.reanchorClockIfMovedBack(userPresent: true)
            try await vault.touch()
            let outcome = await singleFlight { await self.performRefreshUnlessValidAgain(vault, session: session) }
            wakeAutoRefresh(after: outcome)
            return outcome
        } catch {
            return await outcome(for: error)
        }
    }

    /// Refreshes now (single-flight), e.g. from a background task, whether or not the access
    /// token is due: the one call that may refresh a token the server has just issued. A
    /// server's 429 is still honoured (`.offline` until its `retry_after` has passed, without a
    /// request). On failure the outcome's `retryAfter` carries the delay for the next attempt.
    public func refreshNow() async -> ResumeOutcome {
        if let pending = await storeUnsavedRotation() { return pending }
        do {
            let vault = try openVault()
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

    // MARK: Paths

    /// Biometric unlock when enabled; nil means "go on and refresh".
    private func unlock(_ vault: Vault, session: Session, reason: ExpiryReason) async -> ResumeOutcome? {
        let needsUser = reason.requiresUnlock(under: policy)
        guard session.biometricEnabled, let biometrics else {
            // Idle (or a clock moved back past an idle limit) without biometrics: the app's own
            // password screen, then resumeAfterUnlock().
            return needsUser ? .locked : nil
        }
        // An active user whose access token merely expired refreshes silently unless the policy
        // asks for a prompt before every refresh: otherwise every hour of use would prompt.
        if !needsUser && policy.biometricPrompt == .afterIdle { return nil }
        let recorded = await vault.biometricDomainState()
        if let recorded, let current = await biometrics.currentDomainState(), current != recorded {
            // Someone enrolled a new finger or face: the stored unlock no longer proves the owner.
            try? await vault.setBiometricUnlock(false)
            return await endSession(vault, reason: .biometryChanged, sessionID: session.id)
        }
        switch await biometrics.authenticate(reason: "Unlock to continue your session") {
        case .success:
            // The user is here now: the reference for later decisions, even after a clock that
            // moved back (which would otherwise lock again on the next call).
            try? await vault.reanchorClockIfMovedBack(userPresent: true)
            try? await vault.touch()
            return nil
        case .failed, .cancelled, .unavailable:
            return .locked
        }
    }

    /// After an unlock (which counts as activity) an idle session whose access token is still
    /// alive is valid again: no network call is needed for it.
    /// Runs inside a flight: must not start another one (it would wait on itself).
    private func performRefreshUnlessValidAgain(_ vault: Vault, session: Session) async -> ResumeOutcome {
        if case .valid(let current)? = try? await vault.resumePath() {
            // Valid again, but a DPoP session only with its key (as `carryOut` checks).
            if case .stop(let stopped) = await sessionProof(for: current, in: vault) { return stopped }
            return .home(current)
        }
        return await performRefresh(expected: session)
    }

    /// The refresh of `session` with no unlock before it (`backgroundAccessToken()`).
    func refreshForBackground(_ session: Session) async -> ResumeOutcome {
        if let pending = await storeUnsavedRotation() { return pending }
        return await refresh(expected: session)
    }

    /// Single-flight: callers during one refresh share its outcome.
    private func refresh(expected session: Session) async -> ResumeOutcome {
        await singleFlight { await self.performRefresh(expected: session) }
    }

    /// Runs `operation` unless one is already in flight, in which case its outcome is shared.
    /// `operation` itself must never call `singleFlight` (it would await its own task).
    private func singleFlight(_ operation: @escaping @Sendable () async -> ResumeOutcome) async -> ResumeOutcome {
        if let inFlight { return await inFlight.value }
        let task = Task { await operation() }
        inFlight = task
        let outcome = await task.value
        inFlight = nil
        return outcome
    }

    private func performRefresh(expected session: Session) async -> ResumeOutcome {
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
    private func refreshHoldingLock(_ vault: Vault, session: Session) async throws -> ResumeOutcome {
        // The previous holder may have rotated (or signed out) just before it let go.
        guard let current = try await vault.currentSession(), current.id == session.id else { return await outcomeWithoutRefresh(vault) }
        if current.tokenVersion > session.tokenVersion { return .home(current) }
        // A server's 429, seen here or recorded by another process: no request until it passed.
        if let wait = try await refreshDeferral(vault) {
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
        if case .failure(.storageFull) = rotation {
            // The server has spent the old token: the new ones are all the session has. Keep
            // them in locked memory, keep the refresh lock, and write them on the next call.
            unsavedRotation = UnsavedRotation(sessionID: session.id, version: session.tokenVersion, refreshed: refreshed, serverClockOffset: offset,
                                              prover: prover)
            logger.error("rotated tokens could not be stored (storage full); kept in memory until they can be", metadata: ["session.id": "\(session.id)"])
            return .home(current)
        }
        guard case .success(let stored) = rotation else {
            if case .failure(.subjectMismatch) = rotation {
                // Terminal: retrying would spend another refresh token on every attempt.
                logger.error("refresh answered for another subject; session ended", metadata: ["session.id": "\(session.id)"])
                return await endSession(vault, reason: .refreshedForAnotherSubject, sessionID: session.id, version: session.tokenVersion)
            }
            // Signed out (or replaced) while the request was out: the server holds a session
            // for these new tokens; end it rather than drop them (issue 24, point 8).
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
    static func rotating(_ vault: Vault, _ refreshed: RefreshedTokens, sessionID: String, version: Int64,
                         serverClockOffset: TimeInterval?) async -> Result<Session, VaultError> {
        do {
            return .success(try await vault.rotate(refreshed.response, expectedSessionID: sessionID, expectedVersion: version,
                                                   serverClockOffset: serverClockOffset))
        } catch {
            return .failure(error)
        }
    }

    /// Lets go of the refresh lock a stored-late rotation kept (see `unsavedRotation`).
    func releaseRefreshLock() { openedRefreshLock?.unlock() }

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
            if error.isNotRegularFile || error.errno == ELOOP { throw .misconfigured("the refresh lock \(vault.files.refreshLock) is not a regular file: \(error)") }
            throw .unavailable(retryAfter: 1, detail: "the refresh lock cannot be opened: \(error)")
        }
    }

    private func settleFailedRefresh(_ vault: Vault, session: Session, error: RefreshError, interrupted: Bool) async -> ResumeOutcome {
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
            rateLimit = (now, delay)
            try? await vault.deferRefreshes(until: now.addingTimeInterval(delay))
            return .offline(session, retryAfter: delay)
        case .serverUnavailable, .network, .invalidResponse:
            if !interrupted { try? await vault.clearRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion) }
            return .offline(session, retryAfter: backoff.nextDelay())
        }
    }

    /// How long no refresh may be sent yet (a 429's `retry_after`, from this process or recorded
    /// in the vault by another); nil when one may be sent now. A recorded time is trusted for at
    /// most the longest delay a server may ask for: a clock set back must not stretch it.
    private func refreshDeferral(_ vault: Vault) async throws(VaultError) -> TimeInterval? {
        let now = clock()
        var wait: TimeInterval = 0
        if let rateLimit {
            // Never more than the delay asked for, and never less because the clock moved back.
            let remaining = min(rateLimit.delay, rateLimit.delay - now.timeIntervalSince(rateLimit.at))
            if remaining > 0 { wait = remaining } else { self.rateLimit = nil }
        }
        if let notBefore = try await vault.refreshNotBefore() {
            let remaining = notBefore.timeIntervalSince(now)
            if remaining > 0 { wait = max(wait, min(remaining, AuthErrorBody.longestRetryDelay)) }
        }
        return wait > 0 ? wait : nil
    }

    /// Another process (or manager) holds the refresh lock: wait for its result to land in the
    /// file instead of spending the same refresh token. The lock comes free when the holder is
    /// done or dies (the kernel releases it), and then this manager carries on under it. Past
    /// `refreshWaitLimit` the answer is `.offline`: the token is never sent while another holds
    /// the lock, however long that holder is paused.
    private func waitForOtherRefresh(_ vault: Vault, session: Session, lock: FileLock) async throws -> ResumeOutcome {
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

    /// The outcome for what the vault holds now, without starting a refresh (used from inside
    /// a refresh, where starting another would wait on itself).
    private func outcomeWithoutRefresh(_ vault: Vault) async -> ResumeOutcome {
        do {
            switch try await vault.resumePath() {
            case .valid(let session): return .home(session)
            case .missing(let reason): return await endSession(vault, reason: reason)
            case .corrupted(let reason): return await recover(from: reason)
            case .unavailable(let retryAfter, let detail): return .unavailable(retryAfter: retryAfter, detail: detail)
            case .expired(let session, _): return .offline(session, retryAfter: backoff.nextDelay())
            }
        } catch {
            return await outcome(for: error)
        }
    }

    /// Clears what must be cleared for `reason` and sends the user to login.
    /// - Parameter sessionID: the session this decision is about; when another session became
    ///   current meanwhile (the next user signed in), it is left alone and its own path is taken.
    func endSession(_ vault: Vault, reason: MissingReason, sessionID: String? = nil, version: Int64? = nil) async -> ResumeOutcome {
        do {
            if let current = try await vault.currentSession() {
                try await vault.signOut(reason: reason, ifCurrent: sessionID ?? current.id, atVersion: version)
            }
        } catch VaultError.staleSession {
            return await outcomeWithoutRefresh(vault)
        } catch {
            return await outcome(for: error)
        }
        return .login(reason: reason, showExpiredMessage: Self.showsExpiredMessage(reason))
    }

    static func showsExpiredMessage(_ reason: MissingReason) -> Bool {
        switch reason {
        case .sessionExpired, .refreshTokenExpired, .absoluteLifetimePassed, .refreshRejected, .refreshInterrupted: return true
        case .proofKeyLost: return true
        case .neverSignedIn, .signedOut, .authRequired, .scopeRejected, .biometryChanged, .wipedAfterCorruption, .refreshedForAnotherSubject:
            return false
        }
    }

    // MARK: Opening and recovery

    /// The vault, opened on first use (a device restart is a new process opening it again).
    private func openVault() throws(VaultError) -> Vault {
        if let openedVault { return openedVault }
        guard let keyProvider else { throw .closed }
        let vault = try Vault.open(at: path, keyProvider: keyProvider, policy: policy, clock: clock, logger: logger)
        openedVault = vault
        return vault
    }

    /// Errors become outcomes: corrupted recovers, everything else is "not now", never "signed out".
    private func outcome(for error: any Error) async -> ResumeOutcome {
        switch error {
        case VaultError.corrupted(let reason):
            return await recover(from: reason)
        case VaultError.unavailable(let retryAfter, let detail):
            return .unavailable(retryAfter: retryAfter, detail: detail)
        // The paths lead to files that cannot be proven this vault's (an app's own database, a
        // file that is not our key file, a link): never recovered by a wipe. Unavailable, with a
        // detail that says why, until the configuration is fixed; every byte is left as it was.
        case VaultError.misconfigured, VaultError.keyProvider(.misconfigured):
            return .unavailable(retryAfter: 60, detail: "\(error)")
        // Everything else, `internalFault` included: the store was not shown to be damaged, so
        // it is "not now", never a wipe.
        default:
            return .unavailable(retryAfter: 1, detail: "\(error)")
        }
    }

    /// The corrupted path: wipe, tombstone, login. A wrong key is the exception: the file is
    /// healthy and the right key (a correctly typed passphrase, the right keychain item) opens
    /// it, so it is never wiped automatically.
    ///
    /// The wipe acts only on the files the corruption was found in: when another process
    /// recovered or replaced the vault in between (a user signed in afresh), nothing is wiped and
    /// the path is decided again on what is there now (`decideAgain`).
    /// - Parameter attempt: how many times this launch has decided again already.
    private func recover(from reason: CorruptionReason, attempt: Int = 0) async -> ResumeOutcome {
        logger.error("vault corrupted", metadata: ["corruption.kind": "\(reason.kind.rawValue)"])
        if reason.kind == .wrongKey {
            return .unavailable(retryAfter: 1, detail: "the key does not match the vault (wrongKey); not wiped")
        }
        do {
            // An open vault is wiped and reopened in place: its subscribers see `.wiped(kind)` and
            // go on receiving the fresh vault's events on the same stream.
            if let openedVault {
                try await openedVault.recoverInPlace(from: reason)
            } else {
                try Vault.recover(at: path, keyProvider: keyProvider, reason: reason, now: clock())
            }
        } catch VaultError.changedElsewhere {
            logger.notice("vault changed since it was found corrupted; deciding again", metadata: ["corruption.kind": "\(reason.kind.rawValue)"])
            return await decideAgain(attempt: attempt + 1)
        } catch {
            return .unavailable(retryAfter: 1, detail: "recovery wipe failed: \(error)")
        }
        // A wipe that finished one cut short kept that wipe's tombstone: its reason is the first.
        let kind = Vault.tombstone(at: path)?.reason ?? reason.kind
        return .login(reason: .wipedAfterCorruption(kind), showExpiredMessage: false)
    }

    /// How many times one launch decides again after the files changed under a recovery.
    private static let decisionLimit = 3

    /// The vault changed between a corruption diagnosis and its wipe: the path of what is there
    /// now, carried out as `resume()` would. Bounded: a vault that keeps changing under every
    /// recovery is "not now", never a wipe of something undiagnosed.
    private func decideAgain(attempt: Int) async -> ResumeOutcome {
        guard attempt < Self.decisionLimit else {
            return .unavailable(retryAfter: 1, detail: "the vault changed under every recovery attempt; nothing was wiped")
        }
        let vault: Vault
        let path: ResumePath
        do {
            vault = try openVault()
            path = try await vault.resumePath()
        } catch VaultError.corrupted(let reason) {
            return await recover(from: reason, attempt: attempt)
        } catch {
            return await outcome(for: error)
        }
        return await carryOut(path, in: vault, attempt: attempt)
    }
}
