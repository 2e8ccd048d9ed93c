import CSodium
import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A wipe touches only files proven to be this vault's: an app's own database, a key path pointed
/// at another file, a key file of a newer format and a vault reached through a link are
/// misconfigurations, and every byte is left as it was.
@Suite("Ownership: nothing is wiped that cannot be proven the vault's")
struct OwnershipTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }

    /// A manager whose refresher is never reached in these tests (the vault does not open).
    func manager(path: String, keys: any KeyProvider) throws -> ResumeManager {
        let nowhere = try #require(URL(string: "http://127.0.0.1:9/auth/v1"))
        return ResumeManager(path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: nowhere, apiKey: "k"))
    }

    /// Every file of the directory with its bytes, lock files aside (they hold no data).
    func contents() -> [String: Data] {
        var result: [String: Data] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where !name.hasSuffix("-lock") && !name.hasSuffix(".lock") {
            var info = stat()
            lstat(directory.file(name), &info)
            // A link is compared by where it points, not by the file behind it.
            result[name] =
                (info.st_mode & S_IFMT) == S_IFLNK
                ? Data(((try? FileManager.default.destinationOfSymbolicLink(atPath: directory.file(name))) ?? "").utf8)
                : FileManager.default.contents(atPath: directory.file(name))
        }
        return result
    }

    func expectMisconfigured(_ outcome: ResumeOutcome, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .unavailable(_, let detail) = outcome else {
            Issue.record("expected unavailable (misconfigured), got \(outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(detail.contains("misconfigured"), "\(detail)", sourceLocation: sourceLocation)
    }

    func storeSession() async throws -> Session {
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let session = try await vault.store(Fixtures.goTrue())
        await vault.close()
        return session
    }

    @Test("an app's own plain SQLite database at the vault path: misconfigured, never wiped")
    func anAppsOwnDatabaseIsNeverWiped() async throws {
        do {
            let notes = try Connection(path: path, create: true)
            try notes.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('buy milk');")
        }
        let before = contents()
        expectMisconfigured(try await manager(path: path, keys: KeyFileProvider(path: keyPath)).resume())
        #expect(contents() == before)
        do {
            try Vault.recover(at: path, keyProvider: KeyFileProvider(path: keyPath), reason: CorruptionReason(.headerDamaged, "explicit"))
            Issue.record("an explicit recover wiped an app's own database")
        } catch {
            guard case .misconfigured = error else { Issue.record("expected misconfigured, got \(error)"); return }
        }
        #expect(contents() == before)
        let reopened = try Connection(path: path, create: false, readOnly: true)
        #expect(try reopened.scalarText("SELECT body FROM notes") == "buy milk")
    }

    @Test("a key path pointed at another 0600 file: misconfigured; the vault and that file are untouched")
    func aKeyPathAtAnotherFileWipesNothing() async throws {
        _ = try await storeSession()
        let settings = directory.file("settings.json")
        try Data(#"{"theme":"dark","notifications":true,"locale":"nb_NO","fontScale":1.0,"sync":false}"#.utf8)
            .write(to: URL(fileURLWithPath: settings))
        chmod(settings, 0o600)
        let before = contents()
        expectMisconfigured(try await manager(path: path, keys: KeyFileProvider(path: settings)).resume())
        #expect(contents() == before)
        // The real key still opens the untouched vault with its session.
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath), create: false)
        #expect(try await vault.currentSession() != nil)
        await vault.close()
    }

    @Test("a valid key file of a newer key-file version: misconfigured, neither it nor the vault destroyed")
    func aNewerKeyFileVersionWipesNothing() async throws {
        _ = try await storeSession()
        let newer = directory.file("newer.key")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: keyPath)))
        bytes[6] = 2
        // A valid file of its version: its checksum matches its contents.
        var digest = [UInt8](repeating: 0, count: 16)
        crypto_generichash(&digest, 16, bytes, 40, nil, 0)
        bytes.replaceSubrange(40..<56, with: digest)
        try Data(bytes).write(to: URL(fileURLWithPath: newer))
        chmod(newer, 0o600)
        let before = contents()
        expectMisconfigured(try await manager(path: path, keys: KeyFileProvider(path: newer)).resume())
        #expect(contents() == before)
        // Destroying it is refused too: it cannot be verified as a key of ours.
        do {
            try KeyFileProvider(path: newer).destroyKey()
            Issue.record("a key file of a newer version was destroyed")
        } catch {
            guard case .misconfigured = error else { Issue.record("expected misconfigured, got \(error)"); return }
        }
        #expect(contents() == before)
    }

    @Test("a vault reached through a symbolic link: misconfigured; the link, the real file and the key survive")
    func aVaultThroughALinkIsNeverWiped() async throws {
        _ = try await storeSession()
        let real = directory.file("real.db")
        #expect(rename(path, real) == 0)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "real.db")
        let before = contents()
        expectMisconfigured(try await manager(path: path, keys: KeyFileProvider(path: keyPath)).resume())
        #expect(contents() == before)
        // Put back at its real path, the vault opens with its session.
        try FileManager.default.removeItem(atPath: path)
        #expect(rename(real, path) == 0)
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath), create: false)
        #expect(try await vault.currentSession() != nil)
        await vault.close()
    }
}
