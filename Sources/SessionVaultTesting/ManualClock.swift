import Foundation

/// A time source a test sets by hand: the `clock` closure `Vault.open` and `ResumeManager` take.
///
/// It only answers "what time is it"; nothing waits on it. For the auto-refresh loop, which
/// sleeps until a deadline, wrap it in a `SteppedClock`.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
/// let vault = try Vault.open(at: path, keyProvider: try InMemoryKeyProvider(), clock: clock.function)
/// clock.advance(by: 31 * 60)        // past the default idle timeout
/// ```
public final class ManualClock: @unchecked Sendable {
    // Sendable: `lock` guards `current`.
    private let lock = NSLock()
    private var current: Date

    /// A clock that shows `start` until the test moves it.
    public init(_ start: Date) { current = start }

    /// The time the clock shows.
    public var now: Date { lock.withLock { current } }

    /// Moves the time on by `seconds` (back, when negative: a clock the user set back).
    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    /// Sets the time to `date`.
    public func set(_ date: Date) { lock.withLock { current = date } }

    /// The closure `Vault.open` and `ResumeManager` take.
    public var function: @Sendable () -> Date { { [self] in now } }
}
