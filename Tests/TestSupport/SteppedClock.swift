import Foundation
import SessionVault

/// An `AutoRefreshClock` over a `ManualClock`: a sleeper waits until the test moves the time
/// past its deadline, and the test can wait for the loop to go to sleep (an event, not a delay).
/// Kept apart from `ManualClock` because it means more: a `ManualClock` is only read, this one is
/// also slept on, and moving it wakes the sleepers that are due.
public final class SteppedClock: AutoRefreshClock, @unchecked Sendable {
    // Sendable: `lock` guards `sleepers`.
    public let manual: ManualClock
    private let lock = NSLock()
    private var sleepers: [UUID: (deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = [:]

    public init(_ manual: ManualClock) { self.manual = manual }

    public func now() -> Date { manual.now }

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
