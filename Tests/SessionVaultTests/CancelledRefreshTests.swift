import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A cancelled task must not cost the session (supabase-swift#707: a session deleted because the
/// refresh request was cancelled): cancelling the app's task while the refresh request is at the
/// server never signs out, the next launch resumes the session, and the refresh lock is free again.
@Suite("A cancelled refresh never signs out", .timeLimit(.minutes(2)))
struct CancelledRefreshTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager() -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 30),
            policy: ResumeManagerTests.noIdle, clock: fixture.clock.function)
    }

    func storeExpiredSession() async throws {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        fixture.clock.advance(by: 3600 + 60)
    }

    /// The session is still there, the next launch resumes it, and another holder takes the lock.
    func expectSessionKeptAndLockFree(resumedWithRequests expected: Int) async throws {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        #expect(try await vault.currentSession() != nil, "the session survived the cancellation")
        await vault.close()
        let lock = try FileLock(path: fixture.files.refreshLock)
        #expect(try lock.tryLock(), "the refresh lock was released")
        lock.unlock()
        // The next launch: a new manager, as a new process would have.
        guard case .home = await manager().resume() else { Issue.record("the next launch did not resume the session"); return }
        #expect(server.requestCount == expected)
    }

    @Test("cancelled while the server holds the answer: the rotation it then gives is stored, nothing is signed out")
    func cancelledWhileTheAnswerIsHeld() async throws {
        try await storeExpiredSession()
        let gate = ResponseGate()
        server.enqueue(
            ScriptedResponse.json(
                #"{"access_token":"access-after-cancel","token_type":"bearer","expires_in":3600,"refresh_token":"after-cancel","user":{"id":"user-123"}}"#
            ).held(by: gate))
        let app = manager()
        let task = Task { await app.refreshNow() }
        #expect(await server.waitForRequests(1), "the refresh is at the server")
        task.cancel()
        gate.open()
        let outcome = await task.value
        guard case .home = outcome else { Issue.record("a cancelled caller still gets the refresh's outcome: \(outcome)"); return }
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        #expect(
            try await vault.refreshToken().map { $0.withRevealedBytes { String(decoding: $0, as: UTF8.self) } } == "after-cancel",
            "the rotated token is kept, never lost with the cancelled task")
        await vault.close()
        // Valid now: the next launch goes home without another request.
        try await expectSessionKeptAndLockFree(resumedWithRequests: 1)
    }

    @Test("cancelled and the connection dropped: offline, the session kept, the next launch refreshes it")
    func cancelledAndTheConnectionDropped() async throws {
        try await storeExpiredSession()
        let gate = ResponseGate()
        server.enqueue(ScriptedResponse.drop.held(by: gate))
        server.enqueue(
            .json(#"{"access_token":"access-next-launch","token_type":"bearer","expires_in":3600,"refresh_token":"next-launch","user":{"id":"user-123"}}"#))
        let app = manager()
        let task = Task { await app.refreshNow() }
        #expect(await server.waitForRequests(1))
        task.cancel()
        gate.open()
        let outcome = await task.value
        guard case .offline = outcome else { Issue.record("a dropped request is offline: \(outcome)"); return }
        try await expectSessionKeptAndLockFree(resumedWithRequests: 2)
    }
}
