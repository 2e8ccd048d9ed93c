import Foundation

extension ResumeManager {
    /// Starts refreshing in the background while the app is in the foreground: at the access
    /// token's expiry minus `policy.minimumAccessTTL`, through the same single flight as
    /// `resume()` and `freshAccessToken()` (never two refreshes at once). After a network failure
    /// it tries again after the backoff (or the server's `retry_after`) and keeps going; it stops
    /// by itself when the session ends (sign-out, rejected refresh) or needs an unlock. Call
    /// `stopAutoRefresh()` when the app goes to the background. Starting twice is a no-op.
    /// The loop reads the manager's clock (the one given to it, or to the vault it borrows).
    public func startAutoRefresh() {
        startAutoRefresh(clock: SystemAutoRefreshClock(now: clock))
    }

    /// `startAutoRefresh()` on a clock a test moves by hand.
    package func startAutoRefresh(clock: any AutoRefreshClock) {
        guard autoRefresh == nil else { return }
        autoRefreshGeneration &+= 1
        let generation = autoRefreshGeneration
        autoRefresh = Task { [weak self] in
            await self?.runAutoRefresh(clock: clock)
            await self?.autoRefreshEnded(generation)
        }
    }

    /// Stops the auto-refresh; no timer is left running. A refresh already under way finishes
    /// (its result is stored), but no new one starts.
    public func stopAutoRefresh() {
        autoRefresh?.cancel()
        autoRefresh = nil
    }

    /// Whether the auto-refresh loop is running.
    public var isAutoRefreshing: Bool { autoRefresh != nil }

    private func autoRefreshEnded(_ generation: UInt64) {
        if generation == autoRefreshGeneration { autoRefresh = nil }
    }

    private func runAutoRefresh(clock: any AutoRefreshClock) async {
        while !Task.isCancelled {
            guard let vault = try? openVaultForCall(), let session = try? await vault.currentSession() else {
                logger.debug("auto-refresh stopped: no session")
                return
            }
            let due = (session.accessExpiresAt ?? .distantPast).addingTimeInterval(-policy.minimumAccessTTL)
            if clock.now() < due {
                do { try await clock.sleep(until: due) } catch { return }
                continue
            }
            if Task.isCancelled { return }
            let retryAfter: TimeInterval
            switch await refreshNow() {
            case .home:
                continue
            case .offline(_, let delay), .unavailable(let delay, _):
                retryAfter = delay
            case .login, .locked:
                logger.debug("auto-refresh stopped: the session ended or needs an unlock")
                return
            }
            do { try await clock.sleep(until: clock.now().addingTimeInterval(max(0.05, retryAfter))) } catch { return }
        }
    }
}
