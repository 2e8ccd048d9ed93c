import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// "Sign out my other devices" (`signOut(scope: .others)`) keeps this device signed in. It used
/// to clear the vault while the server (GoTrue `POST /logout?scope=others`) ended only the
/// *other* sessions: this device's server session lived on with no token left anywhere to end
/// it (found by the session histories, seed 66). Each test runs against the histories' GoTrue-
/// shaped server, which keeps the truth of every session it issued.
@Suite("Sign-out with scope others ends the other sessions and keeps this one", .timeLimit(.minutes(1)))
struct SignOutOthersScopeTests {
    struct Device {
        let manager: ResumeManager
        let server: HistoryServer
        let clock: ManualClock
        let trueClock: ManualClock
        /// This device's family at the server, and another device's.
        let family: Int, otherFamily: Int
    }

    /// A device signed in (its family) beside another device of the same user (a second family).
    static func device(_ tag: String, policy: ResumePolicy = ResumePolicy()) async throws -> Device {
        let directory = TemporaryDirectory("others-scope")
        let start = Date()
        let clock = ManualClock(start), trueClock = ManualClock(start)
        let server = try HistoryServer(lifetime: 3600, trueClock: trueClock, tag: tag)
        let manager = ResumeManager(
            path: directory.file("vault.db"), keyProvider: KeyFileProvider(path: directory.file("vault.key")),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
            policy: policy, clock: clock.function)
        let (otherFamily, _) = server.signIn()
        let (family, json) = server.signIn()
        try await manager.vault.store(try TokenResponse(json: Data(json.utf8)))
        return Device(manager: manager, server: server, clock: clock, trueClock: trueClock, family: family, otherFamily: otherFamily)
    }

    static func accessText(_ manager: ResumeManager) async throws -> String? {
        try await manager.vault.accessToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
    }

    @Test func othersEndsTheOtherDevicesAndKeepsThisOne() async throws {
        let device = try await Self.device("others-keep")
        let before = try #require(try await device.manager.vault.currentSession())
        let result = try await device.manager.signOut(scope: .others)
        #expect(result.server == .ended)
        #expect(!device.server.isLive(family: device.otherFamily), "the other device's session ended")
        #expect(device.server.isLive(family: device.family), "this device's session lives at the server")
        #expect(try await device.manager.vault.currentSession()?.id == before.id, "and in the vault")
        #expect(result.serverSessionMayOutlive)
        #expect(device.server.logoutRequests == 1 && device.server.refreshRequests == 0)
        // Still signed in: a token for the next API call, without a request.
        guard case .token = await device.manager.freshAccessToken() else {
            Issue.record("this device was signed out")
            return
        }
        #expect(device.server.refreshRequests == 0)
        let audit = try await device.manager.vault.auditEvents(limit: 50)
        #expect(audit.contains { $0.kind == .serverSignOut && $0.reason == "others:ended" })
    }

    /// The device's clock is an hour late: it thinks its access token alive, the server refused
    /// it. One refresh (stored: this session goes on), one more logout, and no third.
    @Test func othersWithALateClockRefreshesOnceAndKeepsTheRotation() async throws {
        let device = try await Self.device("others-late")
        device.trueClock.advance(by: 3700)
        let result = try await device.manager.signOut(scope: .others)
        #expect(result.server == .ended)
        #expect(device.server.refreshRequests == 1 && device.server.logoutRequests == 2)
        #expect(!device.server.isLive(family: device.otherFamily))
        #expect(device.server.isLive(family: device.family))
        let newest = try #require(device.server.family(device.family)?.accessTokens.last)
        #expect(try await Self.accessText(device.manager) == newest, "the rotated tokens were stored")
    }

    /// A logout that refuses a token this call has just refreshed is not worked around with
    /// another refresh: one refresh, one logout, the refusal reported.
    @Test func noSecondRefreshAfterTheOneThisCallMade() async throws {
        let directory = TemporaryDirectory("others-scope")
        let clock = ManualClock()
        let server = try ScriptedHTTPServer()
        let rotated = String(decoding: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2", expiresAt: Fixtures.signInSeconds + 7200), as: UTF8.self)
        server.responder = { request in
            request.path.contains("/logout")
                ? .json(status: 401, #"{"code":401,"error_code":"bad_jwt","msg":"invalid JWT: unable to parse or verify signature"}"#)
                : .json(rotated)
        }
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let manager = ResumeManager(
            path: directory.file("vault.db"), keyProvider: KeyFileProvider(path: directory.file("vault.key")),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5), policy: policy, clock: clock.function)
        try await manager.vault.store(Fixtures.goTrue())
        clock.advance(by: 3600)
        let result = try await manager.signOut(scope: .others)
        #expect(result.server == .accessTokenRejected)
        let paths = server.requests.map(\.path)
        #expect(paths.filter { $0.contains("grant_type=refresh_token") }.count == 1, "\(paths)")
        #expect(paths.filter { $0.contains("/logout") }.count == 1, "\(paths)")
        #expect(try await manager.vault.currentSession() != nil)
    }

    /// Past the idle timeout the token is the unlock screen's to release: nothing is sent.
    @Test func othersWhileLockedSendsNothingAndKeepsTheSession() async throws {
        var policy = ResumePolicy()
        policy.idleTimeout = 300
        let device = try await Self.device("others-locked", policy: policy)
        device.clock.advance(by: 600)
        device.trueClock.advance(by: 600)
        let result = try await device.manager.signOut(scope: .others)
        #expect(result.server == .failed(ResumeManager.othersNeedUnlock))
        #expect(device.server.logoutRequests == 0 && device.server.refreshRequests == 0)
        #expect(device.server.isLive(family: device.otherFamily))
        #expect(try await device.manager.vault.currentSession() != nil)
    }

    @Test func othersWithoutASessionSendsNothing() async throws {
        let device = try await Self.device("others-none")
        _ = try await device.manager.signOut(scope: .local)
        let logouts = device.server.logoutRequests
        let result = try await device.manager.signOut(scope: .others)
        #expect(result.server == .noSession)
        #expect(device.server.logoutRequests == logouts)
        #expect(device.server.isLive(family: device.otherFamily))
    }

    /// RFC 7009 revocation can name only this device's own token, which `others` keeps.
    @Test func othersWithRevocationSendsNothing() async throws {
        let directory = TemporaryDirectory("others-scope")
        let server = try ScriptedHTTPServer()
        let manager = ResumeManager(
            path: directory.file("vault.db"), keyProvider: KeyFileProvider(path: directory.file("vault.key")),
            refresher: OAuth2Refresher(
                tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: "app",
                revocationEndpoint: server.baseURL.appendingPathComponent("revoke")))
        try await manager.vault.store(Fixtures.goTrue())
        let result = try await manager.signOut(scope: .others)
        #expect(result.server == .notSupported)
        #expect(result.endSessionURL == nil)
        #expect(server.requestCount == 0)
        #expect(try await manager.vault.currentSession() != nil)
    }
}
