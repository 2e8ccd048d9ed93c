import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// Found by the session histories (seed 66 before `others` was set aside): a sign-out with scope
/// `others` clears the vault, but the server ends only the user's *other* sessions (GoTrue
/// `POST /logout?scope=others`), so this device's server session lives on with no local token to
/// end it. The result said `.ended` with `serverSessionMayOutlive == false`.
@Suite("Sign-out with scope others says that this device's server session lives on", .timeLimit(.minutes(1)))
struct SignOutOthersScopeTests {
    @Test func othersScopeLeavesThisSessionAtTheServer() async throws {
        let directory = TemporaryDirectory("others-scope")
        let clock = ManualClock()
        let server = try HistoryServer(lifetime: 3600, trueClock: clock, tag: "others")
        let manager = ResumeManager(
            path: directory.file("vault.db"), keyProvider: KeyFileProvider(path: directory.file("vault.key")),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
            clock: clock.function)
        let (family, json) = server.signIn()
        try await manager.vault.store(try TokenResponse(json: Data(json.utf8)))
        let result = try await manager.signOut(scope: .others)
        #expect(result.server == .ended)
        #expect(server.isLive(family: family), "the server ended only the other sessions")
        #expect(result.serverSessionMayOutlive, "the result must say that this device's server session may live on")
        #expect(try await manager.vault.currentSession() == nil)
    }
}
