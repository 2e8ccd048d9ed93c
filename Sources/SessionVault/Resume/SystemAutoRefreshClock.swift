import Foundation

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
