import Foundation

/// Runs an operation against a deadline without cancelling it.
///
/// Why not a task group or `Task.cancel`: on Linux, URLSession rounds request timeouts to whole
/// seconds and gives up only at its own 60 s, and cancelling a task that awaits
/// `URLSession.data(for:)` can deadlock (swift-corelibs-foundation #5412). So the request runs in
/// a task of its own that is never cancelled; the caller stops waiting for it at the deadline and
/// its late answer is dropped.
enum Deadline {
    struct Passed: Error {}

    static func run<T: Sendable>(seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            let timer = Task {
                try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 3600)) * 1_000_000_000))
                if !Task.isCancelled { once.resume(with: .failure(Passed())) }
            }
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                timer.cancel()
                once.resume(with: result)
            }
        }
    }
}

/// A continuation resumed by whichever side comes first, exactly once.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // @unchecked: `continuation` is only touched under `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        self.continuation = continuation
        lock.unlock()
    }

    func resume(with result: Result<T, any Error>) {
        lock.lock()
        let pending = continuation
        continuation = nil
        lock.unlock()
        pending?.resume(with: result)
    }
}
