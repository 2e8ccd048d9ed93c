import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The server answered a refresh and the store was busy when the rotated tokens were written
/// (another connection, here the same file opened a second time, held the write lock past the
/// busy timeout). The rotation was dropped as an error: the vault kept the refresh token the
/// server had just spent, and the next refresh sent it again, a reuse that ends the session at
/// GoTrue. Rule: a write that fails for a passing reason keeps the rotation in memory (as for a
/// full disk) and stores it on the next call.
@Suite("A busy store when the rotation is written", .serialized, .timeLimit(.minutes(1)))
struct BusyRotationTests {
    @Test func theRotationIsKeptAndStoredOnceTheStoreIsFree() async throws {
        let directory = TemporaryDirectory("busy-rotation")
        let path = directory.file("vault.db"), keys = KeyFileProvider(path: directory.file("vault.key"))
        let clock = ManualClock()
        let server = try ScriptedHTTPServer()
        let gate = ResponseGate()
        let rotated = String(decoding: Fixtures.goTrueJSON(refresh: "R-2", expiresAt: Fixtures.signInSeconds + 7200), as: UTF8.self)
        server.enqueue(ScriptedResponse.json(rotated).held(by: gate))
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let manager = ResumeManager(
            path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 30),
            policy: policy, clock: clock.function)
        try await manager.vault.store(Fixtures.goTrue())
        clock.advance(by: 3600)
        let refresh = Task { await manager.refreshNow() }
        #expect(await server.waitForRequests(1))
        // The request is out: another connection takes the write lock until the answer is in.
        let other = try Vault.open(at: path, keyProvider: keys, clock: clock.function)
        try await other.holdWriteLock()
        gate.open()
        guard case .home = await refresh.value else {
            Issue.record("the refresh the server answered is not home")
            try await other.releaseWriteLock()
            return
        }
        #expect(await manager.unsavedRotation != nil, "kept in memory")
        // (A call while the store is still busy waits out the busy timeout once more, then
        // answers from memory, as `AutoRefreshUnsavedRotationTests` shows for a full disk.)
        try await other.releaseWriteLock()
        await other.close()
        // Free again: the next call stores it, without another request.
        guard case .token = await manager.freshAccessToken() else {
            Issue.record("no token once the store is free")
            return
        }
        #expect(await manager.unsavedRotation == nil)
        #expect(server.requestCount == 1)
        let reopened = try Vault.open(at: path, keyProvider: keys, clock: clock.function, create: false)
        let stored = try #require(try await reopened.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        #expect(stored == "R-2")
        await reopened.close()
    }
}

/// Sign-out with a rotation waiting in memory (the store was busy when the answer came): it
/// waited the full `refreshWaitLimit` on its own process's lock, reported a refresh in flight
/// that did not exist, and revoked the refresh token the server had already spent, leaving the
/// rotated one alive at the server. Sign-out settles first, as every call does.
@Suite("Sign-out with a rotation waiting in memory", .serialized, .timeLimit(.minutes(1)))
struct SignOutWithUnsavedRotationTests {
    @Test func theRotatedTokensAreTheOnesEnded() async throws {
        let directory = TemporaryDirectory("busy-sign-out")
        let path = directory.file("vault.db"), keys = KeyFileProvider(path: directory.file("vault.key"))
        let clock = ManualClock()
        let server = try ScriptedHTTPServer()
        let gate = ResponseGate()
        let rotatedAccess = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyJ9.ROTATED-ACCESS"
        let rotated = String(
            decoding: Fixtures.goTrueJSON(access: rotatedAccess, refresh: "R-2", expiresAt: Fixtures.signInSeconds + 7200), as: UTF8.self)
        server.enqueue(ScriptedResponse.json(rotated).held(by: gate))
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let manager = ResumeManager(
            path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 30),
            policy: policy, clock: clock.function, refreshWaitLimit: 10)
        try await manager.vault.store(Fixtures.goTrue())
        clock.advance(by: 3600)
        let refresh = Task { await manager.refreshNow() }
        #expect(await server.waitForRequests(1))
        let other = try Vault.open(at: path, keyProvider: keys, clock: clock.function)
        try await other.holdWriteLock()
        gate.open()
        guard case .home = await refresh.value else {
            Issue.record("the refresh the server answered is not home")
            try await other.releaseWriteLock()
            return
        }
        #expect(await manager.unsavedRotation != nil, "kept in memory")
        try await other.releaseWriteLock()
        await other.close()
        server.enqueue(ScriptedResponse(status: 204))
        let result = try await manager.signOut()
        #expect(!result.refreshWasInFlight, "no refresh was in flight: the rotation was this manager's own")
        #expect(result.server == .ended)
        let logout = try #require(server.requests.last)
        #expect(logout.path.contains("/logout"))
        #expect(logout.header("Authorization") == "Bearer \(rotatedAccess)", "the rotated access token, not the spent one")
        #expect(await manager.unsavedRotation == nil)
        #expect(try await manager.vault.currentSession() == nil)
        #expect(server.requestCount == 2, "no refresh besides the one the server answered")
    }
}

extension Vault {
    /// Takes the database's write lock on this connection (an open immediate transaction) and
    /// keeps it until `releaseWriteLock()`: every other connection's write waits, then is busy.
    fileprivate func holdWriteLock() throws {
        try liveConnection().execute("BEGIN IMMEDIATE")
    }

    fileprivate func releaseWriteLock() throws {
        try liveConnection().execute("ROLLBACK")
    }
}
