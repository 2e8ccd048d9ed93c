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
