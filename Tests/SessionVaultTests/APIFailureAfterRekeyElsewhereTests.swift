import Foundation
import Testing
import SessionVaultTesting
import SessionVaultTestSupport
@testable import SessionVault
#if canImport(Glibc)
import Glibc
#endif

/// Found by the session histories (seed 267, shrunk to five steps): the app rekeyed the vault and
/// its new key took the old one's place; an extension that still had the vault open then fed a
/// `401 SESSION_EXPIRED` for the current access token to `handleAPIFailure` and was told `.home`
/// (or `.locked`): the connection found the files replaced, reopened and resumed, and the
/// server's "this session is over" was dropped. The session stayed in the vault until the next
/// call failed the same way. Rule: a failure is judged against the vault as it is after the
/// reopen, and a verdict for the token that is still current there is carried out.
@Suite("An API failure after a rekey in another process", .serialized, .timeLimit(.minutes(1)))
struct APIFailureAfterRekeyElsewhereTests {
    struct Scene {
        let extensionManager: ResumeManager
        let server: ScriptedHTTPServer
        let token: Token
    }

    /// A session, an extension that has handed out its access token, and the app's rekey with
    /// the new key put in the old one's place.
    static func scene() async throws -> Scene {
        let directory = TemporaryDirectory("api-failure-after-rekey")
        let path = directory.file("vault.db"), keyPath = directory.file("vault.key")
        let server = try ScriptedHTTPServer()
        let clock = ManualClock()
        func manager() -> ResumeManager {
            ResumeManager(
                path: path, keyProvider: KeyFileProvider(path: keyPath),
                refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5), clock: clock.function)
        }
        let app = manager(), extensionManager = manager()
        try await app.vault.store(Fixtures.goTrue())
        guard case .token(let token, _) = await extensionManager.backgroundAccessToken() else {
            throw VaultError.noSession
        }
        let next = KeyFileProvider(path: directory.file("vault-next.key"))
        try await app.vault.rekey(to: next)
        await (try app.vault).close()
        #expect(rename(next.path, keyPath) == 0)
        try? FileManager.default.removeItem(atPath: KeyFileProvider(path: keyPath).generationRecordPath)
        if FileManager.default.fileExists(atPath: next.generationRecordPath) {
            #expect(rename(next.generationRecordPath, KeyFileProvider(path: keyPath).generationRecordPath) == 0)
        }
        return Scene(extensionManager: extensionManager, server: server, token: token)
    }

    @Test func sessionExpiredEndsTheSessionReadWithTheNewKey() async throws {
        let scene = try await Self.scene()
        let body = Data(#"{"code":401,"error_code":"SESSION_EXPIRED","message":"Session expired"}"#.utf8)
        let outcome = await scene.extensionManager.handleAPIFailure(status: 401, body: body, sentToken: scene.token)
        #expect(outcome == .login(reason: .sessionExpired, showExpiredMessage: true))
        #expect(try await scene.extensionManager.vault.currentSession() == nil, "the session the server ended is gone")
        #expect(scene.server.requestCount == 0)
    }

    @Test func anExpiredAccessTokenIsRefreshedOnce() async throws {
        let scene = try await Self.scene()
        scene.server.enqueue(.json(String(decoding: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2"), as: UTF8.self)))
        let body = Data(#"{"code":"PGRST301","message":"JWT expired"}"#.utf8)
        let outcome = await scene.extensionManager.handleAPIFailure(status: 401, body: body, sentToken: scene.token)
        guard case .home = outcome else {
            Issue.record("answered \(String(describing: outcome)), not home after one refresh")
            return
        }
        #expect(scene.server.requestCount == 1, "one refresh, with the new key's vault")
    }
}
