import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Cross-process single-flight: the refresh lock (an flock the kernel holds for the holder) keeps
/// a rotating refresh token from being spent twice, however the holder is paused, and lets the
/// next launch go ahead at once when the holder dies. Every step waits for an event (a request
/// at the server, a process's exit), never for a length of time.
@Suite("Refresh lock: one spender of the refresh token, paused or killed", .timeLimit(.minutes(2)))
struct RefreshLockTests {
    let directory = TemporaryDirectory()
    let server: ScriptedHTTPServer
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }

    static let rotated = #"{"access_token":"new-access","token_type":"bearer","expires_in":3600,"refresh_token":"rotated-once","user":{"id":"user-123"}}"#
    static let alreadyUsed = #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#

    init() throws {
        server = try ScriptedHTTPServer()
        // A strict server: a second use of the token is refused.
        server.defaultResponse = .json(status: 400, Self.alreadyUsed)
    }

    /// A session whose access token is already expired, so every launch decides `expired`.
    func storeExpiredSession() async throws -> Session {
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let session = try await vault.store(Fixtures.goTrue(expiresIn: 0))
        await vault.close()
        return session
    }

    func resumeProcess(waitLimit: TimeInterval) throws -> TestHostProcess {
        try TestHostProcess(["resume", path, keyPath, server.baseURL.absoluteString, "\(waitLimit)"], scratch: directory)
    }

    func manager(waitLimit: TimeInterval) throws -> ResumeManager {
        ResumeManager(
            vault: try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath)),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 120), refreshWaitLimit: waitLimit)
    }

    @Test func aHolderStoppedWhileItsRequestIsOutKeepsTheTokenItsOwn() async throws {
        _ = try await storeExpiredSession()
        let answer = ResponseGate()
        server.enqueue(ScriptedResponse.json(Self.rotated).held(by: answer))
        let holder = try resumeProcess(waitLimit: 10)
        #expect(await server.waitForRequests(1), "the holder's refresh reached the server")
        // The OS suspends the holder with its request out. Three other launches run one after
        // another inside the pause, each waiting out its whole limit: the holder stays stopped for
        // more than three times any timeout in play (there is no lease left to expire).
        #expect(kill(holder.processIdentifier, SIGSTOP) == 0)
        for _ in 0..<3 {
            let other = try resumeProcess(waitLimit: 0.5)
            #expect(await other.finish() == 0, "\(other.output)")
            #expect(other.lines.count == 1 && other.lines[0].hasPrefix("offline "), "waits, then offline, never sends: \(other.lines)")
            #expect(server.requestCount == 1)
        }
        // The answer is on its way before the holder runs again, so it reads it on waking.
        answer.open()
        #expect(kill(holder.processIdentifier, SIGCONT) == 0)
        #expect(await holder.finish() == 0, "\(holder.output)")
        #expect(holder.lines.count == 1 && holder.lines[0].hasPrefix("home ") && holder.lines[0].hasSuffix(" v2"), "\(holder.lines)")
        #expect(server.requestCount == 1, "the refresh token was sent exactly once")
        // And the user is still signed in: the next launch goes home on the rotated tokens.
        let next = try resumeProcess(waitLimit: 10)
        #expect(await next.finish() == 0, "\(next.output)")
        #expect(next.lines == holder.lines)
        #expect(server.requestCount == 1)
    }

    @Test func aHolderKilledMidRefreshFreesTheLockForTheNextLaunchAtOnce() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.hang)
        let holder = try resumeProcess(waitLimit: 10)
        #expect(await server.waitForRequests(1))
        #expect(kill(holder.processIdentifier, SIGKILL) == 0)
        _ = await holder.finish()
        // The server (GoTrue's reuse interval) still honours the token once more.
        server.enqueue(.json(Self.rotated))
        // An hour's wait limit: this launch finishes inside the test's time limit only because
        // the kernel released the dead holder's lock; nothing here waits for a timer.
        let next = try resumeProcess(waitLimit: 3600)
        #expect(await next.finish() == 0, "\(next.output)")
        #expect(next.lines.count == 1 && next.lines[0].hasPrefix("home ") && next.lines[0].hasSuffix(" v2"), "\(next.lines)")
        #expect(server.requestCount == 2)
    }

    @Test func aSlowRefreshKeepsTheLockSoNoOtherHolderSpendsTheToken() async throws {
        // Two managers on two connections in one process (as an app and its extension have in
        // two): the second arrives while the first one's request is out.
        _ = try await storeExpiredSession()
        let answer = ResponseGate()
        server.enqueue(ScriptedResponse.json(Self.rotated).held(by: answer))
        let first = try manager(waitLimit: 10), second = try manager(waitLimit: 0.2)
        async let firstOutcome = first.resume()
        #expect(await server.waitForRequests(1))
        let secondOutcome = await second.resume()
        guard case .offline = secondOutcome else { Issue.record("the second manager must not refresh: \(secondOutcome)"); return }
        answer.open()
        guard case .home(let session) = await firstOutcome else { Issue.record("the lock holder should finish home"); return }
        #expect(session.tokenVersion == 2)
        #expect(server.requestCount == 1, "the refresh token was spent once")
        // Once the holder is done, the second manager goes home on its result without a request.
        guard case .home(let seen) = await second.resume() else { Issue.record("expected home after the holder finished"); return }
        #expect(seen.tokenVersion == 2)
        #expect(server.requestCount == 1)
    }

    @Test func aWaitingManagerGoesHomeOnTheHoldersResult() async throws {
        _ = try await storeExpiredSession()
        let answer = ResponseGate()
        server.enqueue(ScriptedResponse.json(Self.rotated).held(by: answer))
        let first = try manager(waitLimit: 10), second = try manager(waitLimit: 3600)
        async let firstOutcome = first.resume()
        #expect(await server.waitForRequests(1))
        async let secondOutcome = second.resume()
        answer.open()
        let outcomes = await [firstOutcome, secondOutcome]
        for outcome in outcomes {
            guard case .home(let session) = outcome else { Issue.record("expected home: \(outcome)"); continue }
            #expect(session.tokenVersion == 2)
        }
        #expect(server.requestCount == 1)
    }

    @Test func aReuseAnswerAfterAnotherProcessRotatedKeepsTheRotatedSession() async throws {
        // Another runtime refreshed on its own (without our lock) and stored its result while our
        // request was out; the server then refuses our now-spent token as reused.
        _ = try await storeExpiredSession()
        let answer = ResponseGate()
        server.enqueue(ScriptedResponse.json(status: 400, Self.alreadyUsed).held(by: answer))
        let manager = try manager(waitLimit: 10)
        async let outcome = manager.resume()
        #expect(await server.waitForRequests(1))
        let writer = try TestHostProcess(["rotate", path, keyPath, "rotated-by-the-other-runtime"], scratch: directory)
        #expect(await writer.finish() == 0, "\(writer.output)")
        answer.open()
        guard case .home(let session) = await outcome else { Issue.record("the rotated session must survive a reuse answer"); return }
        #expect(session.tokenVersion == 2)
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let token = try #require(try await vault.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "rotated-by-the-other-runtime")
        await vault.close()
    }
}
