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
        var policy = ResumePolicy.standard
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
        server.enqueue(.json(#"{"access_token":"\#(Fixtures.accessMarker)-3","token_type":"bearer","expires_in":3600,"refresh_token":"\#(Fixtures.refreshMarker)-3","user":{"id":"user-123","email":"mentor@example.org"}}"#))
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
}
