import Foundation

/// The result of work given a deadline: finished with a value, or still running when it passed.
enum Deadline<T: Sendable>: Sendable {
    case finished(T)
    case timedOut

    /// Runs `work` on a thread of its own and returns its result, or `.timedOut` when it has not
    /// finished within `seconds` (the thread is left to run: a blocked C call cannot be
    /// cancelled). The wait is for whichever event comes first, the result or the deadline, so a
    /// bug that hangs fails the test instead of hanging the run.
    static func run(seconds: Double, _ work: @escaping @Sendable () -> T) async -> Deadline<T> {
        let once = ResumeOnce<Deadline<T>>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Deadline<T>, Never>) in
            once.set(continuation)
            Thread.detachNewThread { once.resume(.finished(work())) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { once.resume(.timedOut) }
        }
    }
}
