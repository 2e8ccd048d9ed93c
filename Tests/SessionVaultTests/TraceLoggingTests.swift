import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Every public operation logged at `.trace`: no token, key, passphrase or e-mail address, as
/// bytes or as text, in any message or metadata value.
@Suite("Logging at trace level: nothing secret or personal in any line")
struct TraceLoggingTests {
    @Test func everyPublicOperationAtTraceLevelLogsNoSecretAndNoEmail() async throws {
        let store = RecordingLogHandler.Store()
        var logger = Logger(label: "trace") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = .trace
        let fixture = TestVault()
        let server = try ScriptedHTTPServer()
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        let passphrase = "correct horse battery staple \(Fixtures.refreshMarker)-pass"
        var passphraseBytes = Array(passphrase.utf8)
        let keys = try PassphraseKeyProvider(passphrase: SecretBytes(consuming: &passphraseBytes))
        let vault = try Vault.open(at: fixture.path, keyProvider: keys, policy: policy, clock: fixture.clock.function, logger: logger)
        try await vault.store(Fixtures.goTrue())
        try await vault.rotate(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-2", access: "\(Fixtures.accessMarker)-2"))
        try await vault.touch()
        try await vault.setBiometricUnlock(true, domainState: [1, 2, 3])
        fixture.clock.advance(by: 7200)
        server.enqueue(
            .json(
                #"{"access_token":"\#(Fixtures.accessMarker)-3","token_type":"bearer","expires_in":3600,"refresh_token":"\#(Fixtures.refreshMarker)-3","user":{"id":"user-123","email":"mentor@example.org"}}"#
            ))
        let manager = ResumeManager(vault: vault, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon"))
        _ = await manager.resume()
        _ = await manager.freshAccessToken()
        _ = try await vault.verify()
        let newKeyPath = fixture.directory.file("new.key")
        try await vault.rekey(to: KeyFileProvider(path: newKeyPath))
        // The root key's bytes (a key file holds them after its 8-byte preamble), as logs would show them.
        let keyFile = try #require(FileManager.default.contents(atPath: newKeyPath))
        let rootHex = Hex.encode(Array(keyFile.dropFirst(8).prefix(32)))
        server.enqueue(.json(status: 204, ""))
        _ = try await manager.signOut(scope: .global)
        try await vault.store(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-4"))
        try await vault.wipe(reason: CorruptionReason(.invariantViolation, "trace test"))
        try Vault.recover(at: fixture.path, keyProvider: KeyFileProvider(path: newKeyPath), reason: nil)

        let lines = store.all
        #expect(lines.count >= 8, "the library logged at trace level through the given logger: \(lines.count) lines")
        for line in lines {
            #expect(!line.contains(Fixtures.refreshMarker), "a refresh token or the passphrase reached a log line")
            #expect(!line.contains(Fixtures.accessMarker), "an access token reached a log line")
            #expect(!line.contains("correct horse"), "the passphrase reached a log line")
            #expect(!line.contains("@example.org"), "an e-mail address reached a log line")
            #expect(!line.lowercased().contains(rootHex.prefix(16)), "key bytes reached a log line")
        }
    }

    /// The password of a GoTrue sign-in, right or wrong, in no log line, no error and no
    /// description. Counts are asserted, never the lines: a failure must not print the secret.
    @Test func signInLogsNeitherThePasswordNorTheEmail() async throws {
        let store = RecordingLogHandler.Store()
        var logger = Logger(label: "trace") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = .trace
        let fixture = TestVault()
        let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys, clock: fixture.clock.function, logger: logger)
        let server = try GoTrueSignInServer(clock: fixture.clock)
        let marker = "PASSWORDMARKER"
        let password = "s3cret \(marker) \"quoted\""
        server.addUser(email: "mentor@example.org", password: password, id: "user-9")
        let manager = ResumeManager(vault: vault, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: GoTrueSignInServer.apiKey, timeout: 5))
        var described: [String] = []
        do {
            try await manager.signIn(email: "mentor@example.org", password: "wrong \(marker)")
        } catch {
            described += [error.description, String(describing: error), String(reflecting: error), "\(error)"]
        }
        let session = try await manager.signIn(email: "mentor@example.org", password: password)
        described += [session.description, String(reflecting: session)]
        for _ in 0..<5 { _ = try? await manager.signIn(email: "mentor@example.org", password: "wrong \(marker)") }
        do {
            try await manager.signIn(email: "mentor@example.org", password: password)
        } catch {
            described += [error.description, String(reflecting: error)]
            #expect(error == .rateLimited(retryAfter: 300))
        }
        // The marker really went out (so finding it nowhere below means something).
        #expect(server.signInRequests.filter { $0.body.contains(marker) }.count == 8)
        let lines = store.all
        #expect(lines.contains { $0.contains("signed in") }, "the sign-in was logged")
        #expect(lines.filter { $0.contains(marker) }.count == 0, "the password reached a log line")
        #expect(lines.filter { $0.contains("@example.org") }.count == 0, "the e-mail address reached a log line")
        #expect(described.filter { $0.contains(marker) }.count == 0, "the password reached an error or a description")
    }
}
