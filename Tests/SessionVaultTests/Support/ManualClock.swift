import Foundation

/// A clock the test moves by hand.
final class ManualClock: @unchecked Sendable {
    // Sendable: `lock` guards `current`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    var now: Date { lock.withLock { current } }

    func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }

    func set(_ date: Date) { lock.withLock { current = date } }

    /// The closure `Vault.open` takes.
    var function: @Sendable () -> Date { { [self] in now } }
}
