import Foundation
import SessionVault

/// Carries the result of a task back to the thread that waits for it (`FuzzAwait`).
final class FuzzResultBox<T: Sendable>: @unchecked Sendable {
    // @unchecked: every access goes through the lock.
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.lock()
        result = value
        lock.unlock()
    }

    func get() -> Result<T, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}
