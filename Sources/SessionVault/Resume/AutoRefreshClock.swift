import Foundation

/// The time source and the waiting of the foreground auto-refresh, so a test can move time on
/// by hand and see exactly when the loop wakes.
public protocol AutoRefreshClock: Sendable {
    func now() -> Date
    /// Returns at `deadline` (or at once if it has passed); throws when the task is cancelled.
    func sleep(until deadline: Date) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemAutoRefreshClock: AutoRefreshClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = min(max(0, deadline.timeIntervalSinceNow), 24 * 3600)
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
