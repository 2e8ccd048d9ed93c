import Foundation

/// A time source the test sets by hand: the `clock` closure `Vault.open` takes. It only answers
/// "what time is it"; nothing waits on it (for a loop that sleeps until a deadline, see
/// `SteppedClock`, which runs on one of these).
public final class ManualClock: @unchecked Sendable {
    // Sendable: `lock` guards `current`.
    private let lock = NSLock()
    private var current: Date

    /// - Parameter start: the time until the test moves it (by default `Fixtures.signIn`).
    public init(_ start: Date = Date(timeIntervalSince1970: TimeInterval(Fixtures.signInSeconds))) { current = start }

    public var now: Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    public func set(_ date: Date) { lock.withLock { current = date } }

    /// The closure `Vault.open` takes.
    public var function: @Sendable () -> Date { { [self] in now } }
}
