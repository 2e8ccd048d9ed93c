import Foundation

/// The demo's clock: it starts at the real time and the tour moves it forward by hand, as a
/// device would see days pass between launches.
final class DemoClock: @unchecked Sendable {
    // Sendable: `lock` guards `current`.
    private let lock = NSLock()
    private var current: Date

    init(start: Date) { current = start }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func set(_ date: Date) {
        lock.lock()
        current = date
        lock.unlock()
    }

    /// The closure `Vault.open` takes.
    var function: @Sendable () -> Date { { [self] in now } }
}
