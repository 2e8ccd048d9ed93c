import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Every setting a vault file's bytes depend on is pinned on every connection
/// (`Connection.cipherSettings`), so that no engine default, and no process-wide default the app
/// set for its own databases, reaches a vault file. The case here is the one iOS apps are told to
/// do: `PRAGMA cipher_default_plaintext_header_size = 32` for their app-group database. Left
/// unpinned, on SQLCipher 4.6.1 every vault open and creation in that process failed on its first
/// read (SQLITE_ERROR: the plaintext header applied to the vault, with no salt given). SQLCipher
/// 3.x has no such setting: there the checks hold trivially; the 4.x leg (make test-sqlcipher4) is
/// the one that tells.
@Suite("Cipher settings pinned on every connection", .serialized)
struct PinnedCipherSettingsTests {
    @Test func aProcessWideDefaultPlaintextHeaderDoesNotReachTheVault() async throws {
        // The default is process-wide: set on a connection of its own (keyed, as 4.7+ wants
        // before any statement), and put back whatever happens.
        let directory = TemporaryDirectory()
        let other = try EngineTests.keyedConnection(directory.file("app-database.db"))
        try other.execute("PRAGMA cipher_default_plaintext_header_size = 32")
        defer { try? other.execute("PRAGMA cipher_default_plaintext_header_size = 0") }

        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        try other.execute("PRAGMA cipher_default_plaintext_header_size = 0")

        let head = try #require(FileManager.default.contents(atPath: fixture.path)).prefix(16)
        #expect(head.count == 16)
        #expect(head != Data("SQLite format 3\0".utf8), "the vault's first page starts in plaintext")
        // Another process, with the engine's own defaults, opens it.
        let host = try TestHostProcess(["open", fixture.path, fixture.keyPath], scratch: TemporaryDirectory("sessionvault-host"))
        #expect(await host.finish(timeout: 60) == 0)
        #expect(host.output.contains("opened"), "\(host.output)")
    }

    /// A vault made before the app set the default still opens with its session afterwards:
    /// unpinned, SQLCipher 4.6.1 read its first page as plaintext and the open failed.
    @Test func aVaultOpensWithItsSessionAfterTheAppSetADefaultPlaintextHeader() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue())
        await vault.close()

        let directory = TemporaryDirectory()
        let other = try EngineTests.keyedConnection(directory.file("app-database.db"))
        try other.execute("PRAGMA cipher_default_plaintext_header_size = 32")
        defer { try? other.execute("PRAGMA cipher_default_plaintext_header_size = 0") }
        let reopened = try fixture.open(create: false)
        let snapshot = try await reopened.snapshot()
        await reopened.close()
        guard case .session(let session, _, _) = snapshot else {
            Issue.record("the stored session is gone: \(snapshot)")
            return
        }
        #expect(session.id == stored.id)
    }

    /// The list itself: a setting dropped from it would leave that part of the format to the
    /// engine's default again.
    @Test func theListNamesEverySettingOfTheFormat() {
        let main = Connection.cipherSettings(schema: nil, pageSize: 4096, kdfIterations: 64_000)
        let copy = Connection.cipherSettings(schema: "rekeyed", pageSize: 4096, kdfIterations: 64_000)
        for setting in [
            "cipher_compatibility = 3", "cipher_page_size = 4096", "kdf_iter = 64000", "cipher_use_hmac = ON",
            "cipher_hmac_algorithm = HMAC_SHA1", "cipher_kdf_algorithm = PBKDF2_HMAC_SHA1",
            "cipher_plaintext_header_size = 0"
        ] {
            #expect(main.contains("PRAGMA \(setting);"), "\(setting)")
            #expect(copy.contains("PRAGMA rekeyed.\(setting);"), "\(setting)")
        }
        // cipher_compatibility resets the others on 4.x: it must come first.
        #expect(main.hasPrefix("PRAGMA cipher_compatibility = 3;"))
    }
}
