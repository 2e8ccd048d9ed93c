import Foundation

/// Watches a child's output for `OAUTH-SERVER READY port=<n>` and hands the port to the one
/// waiter the moment the line arrives (or the error the moment the child exits): an event, not
/// a poll. The timeout only bounds a broken setup.
final class ReadyLine: @unchecked Sendable {
    // Sendable: `lock` guards everything below.
    private let lock = NSLock()
    private var text = ""
    private var errors = ""
    private var result: Result<Int, OAuthTestServerError>?
    private var waiter: CheckedContinuation<Int, any Error>?

    func append(_ data: Data) {
        settle {
            text += String(decoding: data, as: UTF8.self); return Self.port(in: text).map { .success($0) }
        }
    }

    func appendError(_ data: Data) {
        lock.withLock { errors += String(decoding: data, as: UTF8.self) }
    }

    func exited(_ status: Int32) {
        settle { .failure(.exitedBeforeReady(status: status, stderr: String(errors.suffix(2000)))) }
    }

    func port(timeout seconds: Double) async throws -> Int {
        let timer = Task { [self] in
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            settle { .failure(.notReady(seconds: seconds)) }
        }
        defer { timer.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            let settled: Result<Int, OAuthTestServerError>? = lock.withLock {
                if result == nil { waiter = continuation }
                return result
            }
            if let settled { continuation.resume(with: settled) }
        }
    }

    /// Records the first result `decide` produces and wakes the waiter with it.
    private func settle(_ decide: () -> Result<Int, OAuthTestServerError>?) {
        let (continuation, outcome): (CheckedContinuation<Int, any Error>?, Result<Int, OAuthTestServerError>?) = lock.withLock {
            guard result == nil, let decided = decide() else { return (nil, nil) }
            result = decided
            defer { waiter = nil }
            return (waiter, decided)
        }
        if let continuation, let outcome { continuation.resume(with: outcome.mapError { $0 as any Error }) }
    }

    private static func port(in text: String) -> Int? {
        guard let range = text.range(of: "OAUTH-SERVER READY port=") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        guard text[range.upperBound...].dropFirst(digits.count).first == "\n" else { return nil }
        return Int(digits)
    }
}
