import Foundation

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
