import Foundation
import SessionVault

/// The clock of `ResumeManager`'s auto-refresh loop, moved by hand: the loop's sleep until its
/// next refresh ends when the test moves the time past that deadline, and the test can wait
/// for the loop to go to sleep (an event, not a delay). Start the loop with
/// `manager.startAutoRefresh(clock:)`.
///
/// Kept apart from `ManualClock` because it means more: a `ManualClock` is only read, this one is
/// also slept on, and moving it wakes the sleepers that are due.
public final class SteppedClock: AutoRefreshClock, @unchecked Sendable {
    // Sendable: `lock` guards `sleepers`.
    /// The clock the vault and the manager read (give its `function` to them).
    public let manual: ManualClock
    private let lock = NSLock()
    private var sleepers: [UUID: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]

    /// A stepped clock showing `manual`'s time.
    public init(_ manual: ManualClock) { self.manual = manual }

    /// The time `manual` shows.
    public func now() -> Date { manual.now }

    /// Returns once the time is moved to `deadline` or later (at once if it is there already);
    /// throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Date) async throws {
        if deadline <= manual.now { return }
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = lock.withLock {
                    if deadline <= manual.now { return true }
                    sleepers[id] = (deadline, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = lock.withLock { sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The deadlines the loop is sleeping until now.
    public var pendingDeadlines: [Date] { lock.withLock { sleepers.values.map(\.deadline) } }

    /// Waits until someone sleeps (the auto-refresh loop has nothing to do before its deadline).
    public func waitForSleeper(timeout: TimeInterval = 30) async -> Date? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let deadline = pendingDeadlines.first { return deadline }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return pendingDeadlines.first
    }

    /// Waits until someone sleeps until a deadline later than `after` (the loop's next turn).
    public func waitForSleeper(after: Date, timeout: TimeInterval = 30) async -> Date? {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if let deadline = pendingDeadlines.first(where: { $0 > after }) { return deadline }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return pendingDeadlines.first { $0 > after }
    }

    /// Moves the time to `date` and wakes every sleeper whose deadline has come.
    public func advance(to date: Date) {
        manual.set(date)
        let due = lock.withLock {
            let ids = sleepers.filter { $0.value.deadline <= date }.map(\.key)
            return ids.compactMap { sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }
}

extension ResumeManager {
    /// Starts the foreground auto-refresh (as `startAutoRefresh()`) on `clock` instead of the
    /// system's: the loop sleeps until the test moves `clock` past its next deadline.
    public func startAutoRefresh(clock: SteppedClock) {
        startAutoRefresh(clock: clock as any AutoRefreshClock)
    }
}
