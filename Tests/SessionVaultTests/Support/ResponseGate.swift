import Foundation

/// Holds a scripted response back until the test opens it: the test decides when the server
/// answers (after it paused or killed the client, say), instead of guessing with a delay.
final class ResponseGate: @unchecked Sendable {
    // @unchecked: `isOpen` is only touched under `condition`.
    private let condition = NSCondition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks the calling (connection) thread until `open()`, or until `abandon()` says the
    /// server is stopping; checked every 100 ms so a stopped server never leaves a thread behind.
    func wait(abandon: () -> Bool) {
        condition.lock()
        defer { condition.unlock() }
        while !isOpen && !abandon() {
            _ = condition.wait(until: Date().addingTimeInterval(0.1))
        }
    }
}
