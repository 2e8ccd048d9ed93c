import Foundation
import Logging

/// Decides and carries out the resume path on every launch and every return from background.
///
/// It opens the vault (once), decides the path with `ResumeDecision`, and for `expired` unlocks
/// (biometric if enabled), refreshes through the injected `SessionRefresher` and stores the
/// rotated tokens durably before returning home. Refreshes are single-flight: any number of
/// concurrent callers in this process share one network call, and across processes the refresh
/// lease in the vault file lets only one process spend the refresh token.
public actor ResumeManager {
    private let path: String
    /// Nil until known for a manager made with an open vault: read from it at recovery time.
    private var keys: (any KeyProvider)?
    private var openedVault: Vault?
    private let refresher: any SessionRefresher
    private let biometrics: (any BiometricGate)?
    private let policy: ResumePolicy
    private let clock: @Sendable () -> Date
    private let logger: Logger
    /// Identifies this manager's refreshes in the shared lease row.
    private let leaseOwner = "\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
    /// How long a lease holder may take before another process may take over.
    public let leaseDuration: TimeInterval
    private var inFlight: Task<ResumeOutcome, Never>?
    private var backoff: RetryBackoff

    /// A manager that opens the vault at `path` itself on the first `resume()` (and reopens it
    /// after a recovery wipe).
    public init(path: String, keys: any KeyProvider, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
                policy: ResumePolicy = .standard, clock: @escaping @Sendable () -> Date = { Date() },
                logger: Logger = Vault.silentLogger, leaseDuration: TimeInterval = 30, backoff: RetryBackoff = RetryBackoff()) {
        self.path = path
        self.keys = keys
        self.refresher = refresher
        self.biometrics = biometrics
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.leaseDuration = leaseDuration
        self.backoff = backoff
    }

    /// A manager for a vault the app already opened.
    public init(vault: Vault, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Vault.silentLogger,
                leaseDuration: TimeInterval = 30, backoff: RetryBackoff = RetryBackoff()) {
        self.path = vault.files.database
        self.keys = nil
        self.openedVault = vault
        self.refresher = refresher
        self.biometrics = biometrics
        self.policy = vault.policy
        self.clock = clock
        self.logger = logger
        self.leaseDuration = leaseDuration
        self.backoff = backoff
    }

    /// The open vault, once `resume()` has opened it.
    public var vault: Vault? { openedVault }

    /// The open vault, opening it if needed; nil when it cannot be opened now.
    func currentVault() -> Vault? { try? openVault() }

    /// Decides the path and carries it out.
    public func resume() async -> ResumeOutcome {
        // A refresh is already deciding this launch's outcome: share it without another read.
        if let inFlight { return await inFlight.value }
        let vault: Vault
        let path: ResumePath
        do {
            vault = try openVault()
            path = try await vault.resumePath()
        } catch {
            return await outcome(for: error)
        }
        logger.debug("resume path decided", metadata: ["resume.path": "\(path.name)", "resume.reason": "\(path.reason)"])
        switch path {
        case .valid(let session):
            try? await vault.touch()
            return .home(session)
        case .missing(let reason):
            return await endSession(vault, reason: reason)
        case .corrupted(let reason):
            return await recover(from: reason)
        case .unavailable(let retryAfter, let detail):
            return .unavailable(retryAfter: retryAfter, detail: detail)
        case .expired(let session, let reason):
            // Unlock and refresh as one flight: concurrent resumes share one prompt, not only
            // one network call.
            return await singleFlight {
                if let unlocked = await self.unlock(vault, session: session, reason: reason) { return unlocked }
                return await self.performRefreshUnlessValidAgain(vault, session: session)
            }
        }
    }

    /// Continues after the app's own PIN or password screen accepted the user (following a
    /// `.locked` outcome): refreshes and goes home.
    public func resumeAfterUnlock() async -> ResumeOutcome {
        guard let vault = openedVault else { return await resume() }
        do {
            guard let session = try await vault.currentSession() else { return await resume() }
            try await vault.touch()
            return await singleFlight { await self.performRefreshUnlessValidAgain(vault, session: session) }
        } catch {
            return await outcome(for: error)
        }
    }

    /// Refreshes now (single-flight), e.g. from a background task. On failure the outcome's
    /// `retryAfter` carries the backoff delay for the next attempt.
    public func refreshNow() async -> ResumeOutcome {
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
        guard session.biometricEnabled, let biometrics else {
            // Idle without biometrics: the app's own password screen, then resumeAfterUnlock().
            return reason == .idle ? .locked : nil
        }
        let recorded = await vault.biometricDomainState()
        if let recorded, let current = await biometrics.currentDomainState(), current != recorded {
            // Someone enrolled a new finger or face: the stored unlock no longer proves the owner.
            try? await vault.setBiometricUnlock(false)
            return await endSession(vault, reason: .biometryChanged, sessionID: session.id)
        }
        switch await biometrics.authenticate(reason: "Unlock to continue your session") {
        case .success:
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
        if case .valid(let current)? = try? await vault.resumePath() { return .home(current) }
        return await performRefresh(expected: session)
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

    private func performRefresh(expected session: Session, waitedBefore: Bool = false) async -> ResumeOutcome {
        guard let vault = openedVault else { return .unavailable(retryAfter: 1, detail: "the vault is not open") }
        do {
            // Someone (this process earlier, or another one) may have refreshed already.
            if let current = try await vault.currentSession(), current.id == session.id, current.tokenVersion > session.tokenVersion {
                return .home(current)
            }
            switch try await vault.acquireRefreshLease(owner: leaseOwner, sessionID: session.id, expectedVersion: session.tokenVersion,
                                                       duration: leaseDuration) {
            case .heldElsewhere(let until):
                // Waited once already and the holder is still not done: do not spin; try later.
                if waitedBefore { return .offline(session, retryAfter: max(0.1, until.timeIntervalSince(clock()))) }
                return await waitForOtherRefresh(vault, session: session, until: until)
            case .acquired:
                break
            }
            // The token of the session the lease was taken for, not whatever is current by now.
            guard let current = try await vault.currentSession(), current.id == session.id, current.tokenVersion == session.tokenVersion,
                  let token = try await vault.refreshToken() else {
                return await outcomeWithoutRefresh(vault)
            }
            let interrupted = session.refreshPendingSince != nil
            let refreshed: RefreshedTokens
            // Keep the lease alive while the request is out: a slow server must not let another
            // process take the lease over and spend the same refresh token.
            let heartbeat = Task { [leaseOwner, leaseDuration] in
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(leaseDuration / 3 * 1_000_000_000))
                    if Task.isCancelled { return }
                    try? await vault.renewRefreshLease(owner: leaseOwner, sessionID: session.id, duration: leaseDuration)
                }
            }
            defer { heartbeat.cancel() }
            do {
                refreshed = try await refresher.refresh(using: token)
            } catch {
                heartbeat.cancel()
                return await settleFailedRefresh(vault, session: session, error: error, interrupted: interrupted)
            }
            heartbeat.cancel()
            let offset = refreshed.serverDate.map { $0.timeIntervalSince(clock()) }
            let stored = try await vault.rotate(refreshed.response, expectedSessionID: session.id, expectedVersion: session.tokenVersion,
                                                serverClockOffset: offset)
            backoff.reset()
            logger.info("session refreshed", metadata: ["session.id": "\(stored.id)", "token.fp": "\(stored.refreshTokenFingerprint?.hex ?? "-")"])
            return .home(stored)
        } catch VaultError.staleSession {
            // The session was signed out or replaced while we refreshed: report what is there now.
            return await outcomeWithoutRefresh(vault)
        } catch {
            return await outcome(for: error)
        }
    }

    private func settleFailedRefresh(_ vault: Vault, session: Session, error: RefreshError, interrupted: Bool) async -> ResumeOutcome {
        logger.notice("refresh failed", metadata: ["refresh.error": "\(error)"])
        switch error {
        case .invalidGrant:
            return await endSession(vault, reason: interrupted ? .refreshInterrupted : .refreshRejected, sessionID: session.id)
        case .sessionExpired:
            return await endSession(vault, reason: .sessionExpired, sessionID: session.id)
        case .authRequired:
            return await endSession(vault, reason: .authRequired, sessionID: session.id)
        case .rateLimited(let retryAfter):
            try? await vault.releaseRefreshLease(owner: leaseOwner)
            _ = backoff.nextDelay()
            return .offline(session, retryAfter: retryAfter)
        case .serverUnavailable, .network, .invalidResponse:
            try? await vault.releaseRefreshLease(owner: leaseOwner)
            return .offline(session, retryAfter: backoff.nextDelay())
        }
    }

    /// Another process holds the lease: wait for its result to land in the file instead of
    /// spending the same refresh token.
    private func waitForOtherRefresh(_ vault: Vault, session: Session, until: Date) async -> ResumeOutcome {
        let deadline = Date().addingTimeInterval(max(0, until.timeIntervalSince(clock())) + 1)
        while Date() < deadline {
            try? await Task.sleep(nanoseconds: 20_000_000)
            do {
                guard let current = try await vault.currentSession(), current.id == session.id else { return await outcomeWithoutRefresh(vault) }
                if current.tokenVersion > session.tokenVersion { return .home(current) }
            } catch {
                return await outcome(for: error)
            }
        }
        // The holder died or stalled past its lease: the lease can be taken over now.
        return await performRefresh(expected: session, waitedBefore: true)
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
    func endSession(_ vault: Vault, reason: MissingReason, sessionID: String? = nil) async -> ResumeOutcome {
        do {
            if let current = try await vault.currentSession() {
                try await vault.signOut(reason: reason, ifCurrent: sessionID ?? current.id)
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
        case .neverSignedIn, .signedOut, .authRequired, .biometryChanged, .wipedAfterCorruption: return false
        }
    }

    // MARK: Opening and recovery

    /// The vault, opened on first use (a device restart is a new process opening it again).
    private func openVault() throws(VaultError) -> Vault {
        if let openedVault { return openedVault }
        guard let keys else { throw .closed }
        let vault = try Vault.open(at: path, keys: keys, policy: policy, clock: clock, logger: logger)
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
        default:
            return .unavailable(retryAfter: 1, detail: "\(error)")
        }
    }

    /// The corrupted path: wipe, tombstone, login. A wrong key is the exception: the file is
    /// healthy and the right key (a correctly typed passphrase, the right keychain item) opens
    /// it, so it is never wiped automatically.
    private func recover(from reason: CorruptionReason) async -> ResumeOutcome {
        logger.error("vault corrupted", metadata: ["corruption.kind": "\(reason.kind.rawValue)"])
        if reason.kind == .wrongKey {
            return .unavailable(retryAfter: 1, detail: "the key does not match the vault (wrongKey); not wiped")
        }
        // A manager made with an open vault learns the key provider from it, so the wipe
        // destroys the key and the next resume() can open a fresh vault.
        if keys == nil, let openedVault { keys = await openedVault.currentKeyProvider }
        await openedVault?.close()
        openedVault = nil
        do {
            try Vault.recover(at: path, keys: keys, reason: reason, now: clock())
        } catch {
            return .unavailable(retryAfter: 1, detail: "recovery wipe failed: \(error)")
        }
        return .login(reason: .wipedAfterCorruption(reason.kind), showExpiredMessage: false)
    }
}
