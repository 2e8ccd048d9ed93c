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
    let path: String
    /// Nil for a manager that borrows an open vault: read from it at recovery time.
    private(set) var keyProvider: (any KeyProvider)?
    /// The vault once opened (or borrowed); nil until then. `vault` opens it.
    private(set) var openedVault: Vault?
    let refresher: any SessionRefresher
    let biometrics: (any BiometricGate)?
    let policy: ResumePolicy
    let clock: @Sendable () -> Date
    let logger: Logger
    /// This manager's handle on the refresh lock file (see `FileLock`), opened on first refresh.
    var openedRefreshLock: FileLock?
    /// How long a resume waits for another process's refresh before it answers `.offline`
    /// (never sending the token itself while the other holds the refresh lock).
    public let refreshWaitLimit: TimeInterval
    /// The refresh this process has in flight, which every caller meanwhile shares.
    var inFlight: Task<ResumeOutcome, Never>?
    /// The foreground auto-refresh loop (see `startAutoRefresh`), and which start it belongs to.
    var autoRefresh: Task<Void, Never>?
    var autoRefreshGeneration: UInt64 = 0
    var backoff: RetryBackoff
    /// A server's 429 in this process: when it came (on the manager's clock), how long it asked
    /// to wait, and the session whose refresh met it (another session starts afresh). The vault
    /// keeps the same for other processes (`Vault.deferRefreshes`).
    var rateLimit: (at: Date, delay: TimeInterval, sessionID: String)?
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
    ///     provider, `InMemoryKeyProvider` from `SessionVaultTesting` in tests).
    ///   - refresher: talks to your authorization server (`GoTrueRefresher`, `OAuth2Refresher`,
    ///     or your own `SessionRefresher`).
    ///   - biometrics: the platform's biometric prompt; nil when the app has none.
    ///   - policy: lifetimes, idle timeout, biometric prompting (see `ResumePolicy`).
    ///   - clock: the time every decision uses; tests move it by hand.
    ///   - logger: where the vault and the manager log (never a token); nil: nothing is logged.
    ///   - refreshWaitLimit: how long to wait for another process's refresh (seconds).
    ///   - backoff: the delays between failed refreshes.
    ///   - dpop: sender-constrained sessions (DPoP, RFC 9449): proof keys and proofs on every
    ///     token request; nil (the default) keeps bearer sessions.
    public init(
        path: String, keyProvider: any KeyProvider, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
        policy: ResumePolicy = ResumePolicy(), clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger? = nil, refreshWaitLimit: TimeInterval = 10, backoff: RetryBackoff = RetryBackoff(),
        dpop: DPoPConfiguration? = nil
    ) {
        self.path = path
        self.keyProvider = keyProvider
        self.refresher = refresher
        self.biometrics = biometrics
        self.policy = policy
        self.clock = clock
        self.logger = logger ?? Vault.silentLogger
        self.refreshWaitLimit = refreshWaitLimit
        self.backoff = backoff
        self.dpop = dpop
    }

    /// A manager that borrows a vault the app opened (`Vault.open`): it uses that vault's
    /// policy, clock and logger, so they are given once, to `Vault.open`. After a recovery wipe
    /// the same `Vault` is reopened in place.
    ///
    /// `dpop`: sender-constrained sessions, as for `init(path:keyProvider:refresher:…)`.
    public init(
        vault: Vault, refresher: any SessionRefresher, biometrics: (any BiometricGate)? = nil,
        refreshWaitLimit: TimeInterval = 10, backoff: RetryBackoff = RetryBackoff(), dpop: DPoPConfiguration? = nil
    ) {
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
        get throws(VaultError) {
            // Opened on first use (a device restart is a new process opening it again), and
            // kept: the one connection this process has to the file.
            if let openedVault { return openedVault }
            guard let keyProvider else { throw .closed }
            let opened = try Vault.open(at: path, keyProvider: keyProvider, policy: policy, clock: clock, logger: logger)
            openedVault = opened
            return opened
        }
    }

    /// Decides the path and carries it out.
    public func resume() async -> ResumeOutcome {
        // A refresh is already deciding this launch's outcome: share it without another read.
        if let inFlight { return await inFlight.value }
        if let pending = await storeUnsavedRotation() { return pending }
        let vault: Vault
        let path: ResumePath
        do {
            vault = try self.vault
            path = try await vault.resumePath()
        } catch {
            return await outcome(for: error)
        }
        logger.debug("resume path decided", metadata: ["resume.path": "\(path.name)", "resume.reason": "\(path.reason)"])
        return await carryOut(path, in: vault, attempt: 0)
    }

    /// Carries out a decided path: the one place `resume()` and a decision taken again after a
    /// recovery found the files changed (`decideAgain`) act on it.
    func carryOut(_ path: ResumePath, in vault: Vault, attempt: Int) async -> ResumeOutcome {
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
}
