import Foundation

extension ResumeManager {
    /// Keeps the session alive while the app is in the foreground: refreshes when the access
    /// token is due (`ResumePolicy.refreshDue(for:)`: its expiry minus a margin that shrinks
    /// with the granted lifetime, never sooner than `minimumRefreshInterval` after it arrived),
    /// through the same single flight as `resume()` and `freshAccessToken()` (never two
    /// refreshes at once). After a network failure or a 429 it waits as long as the outcome
    /// says (the backoff, or the server's `retry_after`) and goes on.
    ///
    /// Once started it runs whenever there is a session to keep alive, until
    /// `stopAutoRefresh()`: at the login screen or the lock screen it waits, and a sign-in (here
    /// or in another process), an unlock (`resumeAfterUnlock()`) or a launch that reaches home
    /// sets it going again. Call `stopAutoRefresh()` when the app goes to the background.
    /// Starting twice is a no-op. The loop reads the manager's clock (the one given to it, or to
    /// the vault it borrows).
    public func startAutoRefresh() {
        startAutoRefresh(clock: SystemAutoRefreshClock(now: clock))
    }

    /// `startAutoRefresh()` on a clock a test moves by hand.
    package func startAutoRefresh(clock: any AutoRefreshClock) {
        guard autoRefresh == nil else { return }
        autoRefreshGeneration &+= 1
        let generation = autoRefreshGeneration
        autoRefresh = Task { [weak self] in
            await self?.runAutoRefresh(clock: clock, generation: generation)
            await self?.autoRefreshEnded(generation)
        }
    }

    /// How long the loop waits before it tries again to store a rotation kept in memory.
    static let unsavedRotationRetryInterval: TimeInterval = 5

    /// Stops the auto-refresh; no timer is left running. A refresh already under way finishes
    /// (its result is stored), but no new one starts.
    public func stopAutoRefresh() {
        autoRefresh?.cancel()
        autoRefresh = nil
        autoRefreshWake?.finish()
        autoRefreshWake = nil
    }

    /// Whether the auto-refresh loop is running.
    public var isAutoRefreshing: Bool { autoRefresh != nil }

    /// For tests: waits until the loop waits for a sign-in or an unlock (an event, not a
    /// deadline), polling the manager's own state; false if it does not within `timeout`.
    package func waitUntilAutoRefreshWaitsForWake(timeout: TimeInterval = 30) async -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while autoRefreshWake == nil && Date() < end { try? await Task.sleep(nanoseconds: 5_000_000) }
        return autoRefreshWake != nil
    }

    private func autoRefreshEnded(_ generation: UInt64) {
        if generation == autoRefreshGeneration { autoRefresh = nil }
    }

    /// Lets a loop waiting at the login or lock screen go on after an outcome that reached home.
    func wakeAutoRefresh(after outcome: ResumeOutcome) {
        if case .home = outcome { autoRefreshWake?.yield() }
    }

    private func runAutoRefresh(clock: any AutoRefreshClock, generation: UInt64) async {
        while !Task.isCancelled {
            let vault: Vault
            do {
                vault = try self.vault
            } catch {
                // Not now (a locked keystore after a restart): look again a little later.
                logger.debug("auto-refresh waits: the vault cannot be opened now")
                do { try await clock.sleep(until: clock.now().addingTimeInterval(5)) } catch { return }
                continue
            }
            // A rotation the store could not take (a full disk, a busy store) is the only copy
            // of the session's new tokens: it is stored before anything is decided, and while
            // the write keeps failing the loop waits between attempts. The vault still shows the
            // due session meanwhile, so deciding on it (`refreshNow()` answers `.home` from
            // memory) went round at once, a failed write per turn, as fast as the loop could turn.
            if unsavedRotation != nil {
                _ = await storeUnsavedRotation()
                if unsavedRotation != nil {
                    logger.debug("auto-refresh waits: rotated tokens are kept in memory until they can be stored")
                    do { try await clock.sleep(until: clock.now().addingTimeInterval(Self.unsavedRotationRetryInterval)) } catch { return }
                }
                continue
            }
            let current: Session?
            do {
                current = try await vault.currentSession()
            } catch {
                do { try await clock.sleep(until: clock.now().addingTimeInterval(5)) } catch { return }
                continue
            }
            guard let session = current else {
                logger.debug("auto-refresh waits for a sign-in")
                await waitForWake(vault, generation: generation) { vault in (try? await vault.currentSession()) != nil }
                continue
            }
            if !(await mustRefreshNow(vault, session, now: clock.now())), let due = policy.automaticRefreshDue(for: session), clock.now() < due {
                // Slept in this task, with no helper task to schedule: on a busy 2-core machine a
                // watcher task waited long for a thread. A change meanwhile (a sign-out, another
                // process's refresh) is seen when it wakes: it decides again then.
                do { try await clock.sleep(until: due) } catch { return }
                continue
            }
            if Task.isCancelled { return }
            let retryAfter: TimeInterval
            switch await refreshNow() {
            case .home:
                continue
            case .offline(_, let delay), .unavailable(let delay, _), .renewalRefused(_, _, let delay):
                retryAfter = delay
            case .login, .locked:
                logger.debug("auto-refresh waits: the session ended or needs an unlock")
                await waitForWake(vault, generation: generation) { _ in false }
                continue
            }
            do { try await clock.sleep(until: clock.now().addingTimeInterval(max(0.05, retryAfter))) } catch { return }
        }
    }

    /// Whether the loop refreshes now whatever the token's times say, as a background call
    /// would: the clock is behind what the vault already saw (a clock moved back measures no
    /// freshness; the one refresh re-anchors it), or a refresh was interrupted (another process
    /// died inside it and the token may be spent). A vault that cannot be read now says neither.
    private func mustRefreshNow(_ vault: Vault, _ session: Session, now: Date) async -> Bool {
        guard case .session(let current, let lastWallClock, _)? = try? await vault.snapshot(), current.id == session.id else { return false }
        if current.refreshPendingSince != nil { return true }
        var rules = policy
        rules.idleTimeout = nil
        return ResumeDecision.clockMovedBack(lastWallClock: lastWallClock, lastActiveAt: current.lastActiveAt, now: now, policy: rules)
    }

    /// Waits for a sign-in, an unlock or a launch that reaches home: a vault change (here or in
    /// another process) or a wake from this manager. `ready` is asked once after the watch
    /// begins, so a change made just before is not missed.
    /// `generation` is the loop's own: a loop stopped (and perhaps replaced by a new one) neither
    /// installs its wake-up nor, on its way out, clears the one the new loop installed.
    private func waitForWake(_ vault: Vault, generation: UInt64, ready: @escaping @Sendable (Vault) async -> Bool) async {
        guard !Task.isCancelled, generation == autoRefreshGeneration else { return }
        let (wakes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        autoRefreshWake?.finish()
        autoRefreshWake = continuation
        defer {
            continuation.finish()
            if generation == autoRefreshGeneration { autoRefreshWake = nil }
        }
        let events = await vault.events()
        if await ready(vault) { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await _ in wakes { return } }
            group.addTask { for await event in events where Self.wakesAutoRefresh(event) { return } }
            await group.next()
            group.cancelAll()
        }
    }

    /// A change that can give the loop a session to keep alive: new tokens (a sign-in, a
    /// refresh elsewhere), a change in another process, a wipe.
    private static func wakesAutoRefresh(_ event: VaultEvent) -> Bool {
        switch event {
        case .tokenUpdated, .changedElsewhere, .wiped, .signedOut: return true
        case .biometricChanged, .activeSubjectChanged: return false
        }
    }
}

/// The time source and the waiting of the foreground auto-refresh, so a test can move time on
/// by hand and see exactly when the loop wakes. Apps never give one: the manager builds
/// `SystemAutoRefreshClock` from its own clock.
package protocol AutoRefreshClock: Sendable {
    /// The time now.
    func now() -> Date
    /// Returns at `deadline` (or at once if it has passed); throws when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The auto-refresh clock of a running app: the manager's own clock for the time, and
/// `Task.sleep` for the waiting, so the loop and every other decision read the same time.
package struct SystemAutoRefreshClock: AutoRefreshClock {
    private let currentTime: @Sendable () -> Date

    package init(now: @escaping @Sendable () -> Date = { Date() }) {
        currentTime = now
    }

    package func now() -> Date { currentTime() }

    package func sleep(until deadline: Date) async throws {
        let seconds = min(max(0, deadline.timeIntervalSince(currentTime())), 24 * 3600)
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
