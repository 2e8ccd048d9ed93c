import Foundation

/// Lets one sign-in at a time through in this process, in the order they asked: a second
/// sign-in waits for the first to finish (stored or failed) before it sends anything.
final class SignInTurn: @unchecked Sendable {
    // Sendable: `lock` guards `busy` and `waiting`.
    private let lock = NSLock()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Returns when it is the caller's turn; the caller must `give()` it back.
    func take() async {
        let free = lock.withLock {
            if busy { return false }
            busy = true
            return true
        }
        if free { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Checked again under the lock: the turn may have been given back since.
            let resumeNow = lock.withLock {
                if busy {
                    waiting.append(continuation)
                    return false
                }
                busy = true
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Hands the turn to the next waiting sign-in, or frees it.
    func give() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            if waiting.isEmpty {
                busy = false
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }

    /// Sign-ins waiting for their turn (tests synchronize on it).
    var waitingCount: Int { lock.withLock { waiting.count } }
}
