import Foundation
import SessionVaultTestSupport
import SessionVaultTesting

/// A GoTrue-shaped token endpoint with state, on a real `ScriptedHTTPServer`: every refresh with
/// the newest refresh token issues the next pair (`R-n`, `A-n`); one with any older token is a
/// reuse (answered 400 "Already Used", as GoTrue does) and is counted. It can answer a burst of
/// 429s, and it stamps each request with the test's clock, so a test reads the request log in
/// simulated time.
final class RotatingTokenServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    struct Logged: Sendable {
        let at: Date
        let refreshToken: String
        let status: Int
    }

    let http: ScriptedHTTPServer
    private let lock = NSLock()
    private var issued = 0
    private var log: [Logged] = []
    private var pendingRateLimits: [Int] = []
    private let expiresIn: Int?
    private let clock: ManualClock
    private let startedAt: Date

    /// - Parameters:
    ///   - expiresIn: the `expires_in` every answer states; nil leaves it (and any JWT) out.
    ///   - clock: the test's clock, read when a request arrives.
    init(expiresIn: Int?, clock: ManualClock) throws {
        http = try ScriptedHTTPServer()
        self.expiresIn = expiresIn
        self.clock = clock
        startedAt = clock.now
        http.responder = { [unowned self] request in self.answer(request) }
    }

    var baseURL: URL { http.baseURL.appendingPathComponent("auth/v1") }

    /// The refresh token of the sign-in the test stores first (`R-0`).
    var signInRefreshToken: String { "R-0" }

    /// The sign-in response the test stores: `R-0` / `A-0` with this server's lifetime.
    func signInJSON() -> String { Self.pair(0, expiresIn: expiresIn) }

    /// The next `count` refreshes are answered 429 with `retry_after` seconds.
    func rateLimitNext(_ count: Int, retryAfter: Int) {
        lock.withLock { pendingRateLimits += Array(repeating: retryAfter, count: count) }
    }

    var requests: [Logged] { lock.withLock { log } }
    /// Waits until `count` refresh requests have reached the server (the event, polled); false if
    /// that does not happen within `timeout`.
    func waitForRefreshes(_ count: Int, timeout: TimeInterval = 30) async -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while refreshCount < count && Date() < end { try? await Task.sleep(nanoseconds: 5_000_000) }
        return refreshCount >= count
    }

    /// Refresh requests that reached the server.
    var refreshCount: Int { lock.withLock { log.count } }
    /// Access tokens issued: the sign-in's and one per successful refresh.
    var issuedAccessTokens: Int { lock.withLock { issued + 1 } }
    /// Refreshes that sent a token already spent.
    var reuseCount: Int { lock.withLock { log.filter { $0.status == 400 }.count } }
    var rateLimitedCount: Int { lock.withLock { log.filter { $0.status == 429 }.count } }

    /// When access token `A-n` was issued, on this server's clock (nil: never issued). `A-0` is
    /// the sign-in's, issued when the server was made.
    func issueTime(ofAccessToken name: String) -> Date? {
        guard name.hasPrefix("A-"), let n = Int(name.dropFirst(2)) else { return nil }
        return lock.withLock { n == 0 ? startedAt : log.filter { $0.status == 200 }.dropFirst(n - 1).first?.at }
    }

    private func answer(_ request: RecordedRequest) -> ScriptedResponse {
        // Only refreshes are this server's business; a sign-out (`/logout`) is answered as GoTrue
        // does and not counted.
        guard request.path.contains("grant_type=refresh_token") else { return .json(status: 204, "") }
        let sent = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["refresh_token"] as? String ?? ""
        return lock.withLock {
            let now = clock.now
            if let retryAfter = pendingRateLimits.first {
                pendingRateLimits.removeFirst()
                log.append(Logged(at: now, refreshToken: sent, status: 429))
                return .json(status: 429, #"{"error":"over_request_rate_limit","msg":"Request rate limit reached","retry_after":\#(retryAfter)}"#)
            }
            guard sent == "R-\(issued)" else {
                log.append(Logged(at: now, refreshToken: sent, status: 400))
                return .json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#)
            }
            issued += 1
            log.append(Logged(at: now, refreshToken: sent, status: 200))
            return .json(Self.pair(issued, expiresIn: expiresIn))
        }
    }

    static func pair(_ n: Int, expiresIn: Int?) -> String {
        let lifetime = expiresIn.map { #""expires_in":\#($0),"# } ?? ""
        return #"{"access_token":"A-\#(n)","token_type":"bearer",\#(lifetime)"refresh_token":"R-\#(n)","user":{"id":"user-123"}}"#
    }
}
