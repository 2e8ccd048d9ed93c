import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The request budget of a day: an app that calls its API every 30 s for a simulated day, with
/// access lifetimes of 60 s, 300 s, 3600 s and none stated, one clock rollback of an hour and one
/// burst of 429s. The server must see at most one refresh per issued access token (each refreshed
/// once, when due) plus one for the rollback, no request inside a 429's `retry_after`, and no
/// reuse. The API itself checks each access token against the lifetime the server granted on the
/// server's own (true) clock, and answers 401 `invalid_token` once it is dead, as a resource server
/// would.
@Suite("Request budget: a simulated day against a rotating token server", .timeLimit(.minutes(5)))
struct RequestBudgetTests {
    @Test(arguments: [60, 300, 3600, nil] as [Int?])
    func aDayOfUse(expiresIn: Int?) async throws {
        let fixture = TestVault()
        // The server's clock never moves back; the device's clock (fixture.clock) does, once.
        let trueClock = ManualClock(fixture.clock.now)
        let server = try RotatingTokenServer(expiresIn: expiresIn, clock: trueClock)
        let vault = try fixture.open()
        try await vault.store(try TokenResponse(json: Data(server.signInJSON().utf8)))
        await vault.close()
        var policy = ResumePolicy()
        policy.idleTimeout = 30 * 60
        let manager = ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
            policy: policy, clock: fixture.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
        // What the server really grants: a stated lifetime, or an hour when it states none.
        let realLifetime = TimeInterval(expiresIn ?? 3600)
        let step: TimeInterval = 30
        let steps = Int(24 * 3600 / step)
        var unauthorized = 0, unlocks = 0, offline = 0
        for index in 0..<steps {
            if index == steps / 3 { fixture.clock.advance(by: -3600) }
            if index == 2 * steps / 3 { server.rateLimitNext(3, retryAfter: 120) }
            fixture.clock.advance(by: step)
            trueClock.advance(by: step)
            var answeredUnauthorized = false
            call: while true {
                switch await manager.freshAccessToken() {
                case .token(let token, _):
                    let name = token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
                    let issued = try #require(server.issueTime(ofAccessToken: name), "a token the server never issued")
                    if trueClock.now < issued.addingTimeInterval(realLifetime) { break call }
                    // A dead token: the API's 401, fed back once with the token it answered.
                    #expect(!answeredUnauthorized, "step \(index): a refreshed token was dead again")
                    if answeredUnauthorized { break call }
                    answeredUnauthorized = true
                    unauthorized += 1
                    _ = await manager.handleAPIFailure(status: 401, body: Data(#"{"error":"invalid_token"}"#.utf8), sentToken: token)
                case .locked:
                    unlocks += 1
                    #expect(unlocks <= 1, "step \(index): locked although the user makes a call every 30 s")
                    guard case .home = await manager.resumeAfterUnlock() else { Issue.record("step \(index): unlock"); return }
                case .offline:
                    offline += 1
                    break call
                case .sessionEnded(let reason, _):
                    Issue.record("step \(index): the session ended (\(reason))")
                    return
                case .unavailable(_, let detail):
                    Issue.record("step \(index): unavailable: \(detail)")
                    return
                case .renewalRefused:
                    Issue.record("step \(index): the server refused a renewal it never refuses")
                    return
                }
            }
        }
        await manager.stopAutoRefresh()
        let refreshes = server.refreshCount, issued = server.issuedAccessTokens, limited = server.rateLimitedCount
        let lifetime = expiresIn.map { "\($0) s" } ?? "none stated"
        print(
            "request budget, access lifetime \(lifetime), simulated day: \(refreshes) refresh requests for \(issued) access tokens issued"
                + " (\(limited) answered 429, \(unauthorized) API 401s, \(unlocks) unlock, \(offline) calls offline), \(server.reuseCount) reused")
        #expect(server.reuseCount == 0)
        #expect(limited == 3)
        // Each issued token refreshed at most once (the last one not yet), plus one for the
        // rollback; the 429s are the server's own refusals of the same token.
        #expect(refreshes - limited <= issued - 1 + 1, "\(refreshes - limited) refreshes for \(issued) tokens")
        // And no token refreshed before it was due: the day needs no more refreshes than due
        // intervals fit in it (plus the rollback's hour and one for the 429 burst's delay).
        let dueInterval = max(realLifetime - min(300, realLifetime / 4), 30)
        #expect(Double(refreshes - limited) <= (25 * 3600) / dueInterval + 2)
        // Nothing sent inside a 429's retry_after.
        let log = server.requests
        for (earlier, later) in zip(log, log.dropFirst()) where earlier.status == 429 {
            #expect(later.at.timeIntervalSince(earlier.at) >= 120, "a request \(later.at.timeIntervalSince(earlier.at)) s after a 429")
        }
    }
}
