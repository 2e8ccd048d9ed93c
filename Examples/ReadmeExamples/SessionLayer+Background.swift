import SessionVault

extension SessionLayer {
    /// Foreground: refresh ahead of expiry while the app is on screen; no timer in the background.
    func enteredForeground() async { await manager.startAutoRefresh() }
    func enteredBackground() async { await manager.stopAutoRefresh() }

    /// A background task (BGAppRefreshTask, WorkManager): retries with backoff and jitter, or
    /// waits as long as the server's retry_after says.
    func backgroundRefresh() async -> ResumeOutcome {
        await manager.refreshInBackground(maxAttempts: 5)   // refreshNow(): one attempt
    }
}
