import Foundation

/// Resumes a continuation at most once, for two events that race (a result and a deadline).
final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    func set(_ continuation: CheckedContinuation<T, Never>) { lock.withLock { self.continuation = continuation } }

    func resume(_ value: T) {
        let taken = lock.withLock { () -> CheckedContinuation<T, Never>? in
            defer { continuation = nil }
            return continuation
        }
        taken?.resume(returning: value)
    }
}
