import Foundation

/// Exponential backoff with full jitter for failed background refreshes: the n-th failure waits
/// a random time in [0, min(cap, base·2ⁿ)]. Random spread keeps many devices from retrying in
/// step after an outage; success resets it, so one failure never stops later refreshes.
public struct RetryBackoff: Sendable, Equatable {
    /// The ceiling of the first wait, in seconds; it doubles with every failure.
    public var base: TimeInterval
    /// The largest ceiling, in seconds.
    public var cap: TimeInterval
    package private(set) var failures = 0

    /// Waits of up to 1 s, 2 s, 4 s … at most `cap` (defaults: 1 s and 5 minutes).
    public init(base: TimeInterval = 1, cap: TimeInterval = 300) {
        self.base = base
        self.cap = cap
    }

    /// Records a failure and returns how long to wait before the next attempt.
    package mutating func nextDelay() -> TimeInterval {
        let ceiling = min(cap, base * pow(2, Double(min(failures, 30))))
        failures += 1
        return TimeInterval.random(in: 0...ceiling)
    }

    package mutating func reset() { failures = 0 }
}
