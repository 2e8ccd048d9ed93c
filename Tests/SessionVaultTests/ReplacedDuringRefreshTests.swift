import Foundation
import Testing
import SessionVaultTestSupport
@testable import SessionVault
import SessionVaultTesting

/// Found by the session histories (seed 59, shrunk to three steps): an extension's refresh was out
/// when the user signed in afresh in the app, with the device clock moved back since the vault last
/// saw it. The extension's rotation was refused (its session was replaced, rightly), and then it
/// answered "offline" although the network was fine and the new session needed only the refresh it
/// could make right away: a background task went without its token. Rule: a token call whose
/// refresh found its session replaced decides again, once, on the replacement.
@Suite("A refresh that finds its session replaced", .serialized, .timeLimit(.minutes(2)))
struct ReplacedDuringRefreshTests {
    static func pair(_ name: String, expiresIn: Int = 60) -> String {
        #"{"access_token":"A-\#(name)","token_type":"bearer","expires_in":\#(expiresIn),"refresh_token":"R-\#(name)","user":{"id":"user-1"}}"#
    }

    @Test func anExtensionDecidesAgainOnTheSessionThatReplacedItsOwn() async throws {
        let directory = TemporaryDirectory("replaced-during-refresh")
        let path = directory.file("vault.db"), keys = KeyFileProvider(path: directory.file("vault.key"))
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        let gate = ResponseGate()
        let counter = RequestCounter()
        server.responder = { request in
            // The orphaned rotation of the old session is ended at the logout endpoint.
            guard request.path.contains("grant_type=refresh_token") else { return ScriptedResponse(status: 204) }
            let sent = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["refresh_token"] as? String ?? ""
            let n = counter.next()
            // The first refresh (of the old session) waits at the server until the app signed in.
            let answer = ScriptedResponse.json(Self.pair("\(sent.dropFirst(2))-rotated-\(n)"))
            return n == 1 ? answer.held(by: gate) : answer
        }
        let device = ManualClock()
        let app = try Vault.open(at: path, keyProvider: keys, clock: device.function)
        try await app.store(try TokenResponse(json: Data(Self.pair("old").utf8)))
        // The device clock goes back three hours: every decision now refreshes once to re-anchor.
        device.advance(by: -3 * 3600)
        var policy = ResumePolicy()
        policy.idleTimeout = 30 * 60
        let extensionManager = ResumeManager(
            path: path, keyProvider: keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL.appendingPathComponent("auth/v1"), apiKey: "anon", timeout: 30),
            policy: policy, clock: device.function, refreshWaitLimit: 0.2,
            backoff: RetryBackoff(base: 0.01, cap: 0.1))
        let call = Task { await extensionManager.backgroundAccessToken() }
        #expect(await server.waitForRequests(1), "the extension's refresh never reached the server")
        // The user signs in afresh while that refresh is out.
        try await app.store(try TokenResponse(json: Data(Self.pair("new").utf8)))
        gate.open()
        let outcome = await call.value
        guard case .token(let token, let session) = outcome else {
            Issue.record("the extension answered \(outcome) after its session was replaced; the replacement needed one refresh it could make")
            return
        }
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }.hasPrefix("A-new-rotated"), "the token handed out is the new session's")
        let current = try #require(try await app.currentSession())
        #expect(session.id == current.id, "the session handed out is the vault's current one")
        #expect(counter.count == 2, "one refresh for the old session (its rotation refused) and one for the new: \(counter.count)")
        let stored = try #require(try await app.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        #expect(stored.hasPrefix("R-new-rotated"), "the vault holds the new session's rotation, never the old one's")
        await app.close()
    }
}

/// Counts requests across the server's connection threads.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.withLock {
            value += 1; return value
        }
    }
    var count: Int { lock.withLock { value } }
}
