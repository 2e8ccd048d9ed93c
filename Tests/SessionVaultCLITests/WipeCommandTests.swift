import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault wipe")
struct WipeCommandTests {
    @Test func withoutYesItIsAUsageErrorAndNothingIsTouched() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["wipe"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--yes"))
        #expect(vault.exists(vault.path) && vault.exists(vault.keyPath))
    }

    @Test func deletesTheVaultAndShredsTheKey() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["wipe"], ["--yes", "--json"])
        #expect(result.status == 0)
        #expect(result.json?["wiped"] as? Bool == true)
        #expect(result.json?["keyDestroyed"] as? Bool == true)
        #expect(result.json?["tombstone"] is NSNull)
        for file in [vault.path, vault.header, vault.keyPath, vault.path + "-wal", vault.path + "-shm", vault.tombstone] {
            #expect(!vault.exists(file), "\(file) remains")
        }
        let again = try await vault.run(["wipe"], ["--yes"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("nothing to wipe"))
    }

    @Test func aCorruptedVaultLeavesATombstone() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        let result = try await vault.run(["wipe"], ["--yes", "--now", Fixtures.signIn])
        #expect(result.status == 0)
        #expect(result.stdout.contains("tombstone written: notADatabase"))
        #expect(!vault.exists(vault.path))
        #expect(vault.exists(vault.tombstone))
        let resumed = try await vault.run(["resume"], ["--json"])
        #expect(resumed.json?["reason"] as? String == "wipedAfterCorruption:notADatabase")
    }

    @Test func aKeyThatDoesNotMatchIsLeftAlone() async throws {
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        // Refused (exit 3) unless told explicitly: a mistyped key file must not cost the vault.
        let refused = try await CLI.run(["wipe", "--yes", "--vault", vault.path, "--key-file", otherKey])
        #expect(refused.status == 3)
        #expect(refused.isOneLineError)
        #expect(refused.stderr.contains("--without-key"))
        #expect(vault.exists(vault.path) && vault.exists(vault.header))
        let refusedJSON = try await CLI.run(["wipe", "--yes", "--json", "--vault", vault.path, "--key-file", vault.directory.file("typo.key")])
        #expect(refusedJSON.status == 3)
        let error = refusedJSON.json?["error"] as? [String: Any]
        #expect(error?["status"] as? Int == 3)
        #expect(vault.exists(vault.path))
        let result = try await CLI.run(["wipe", "--yes", "--without-key", "--vault", vault.path, "--key-file", otherKey])
        #expect(result.status == 0)
        #expect(result.stdout.contains("key left in place"))
        #expect(!vault.exists(vault.path))
        #expect(vault.exists(otherKey), "another vault's key is never shredded")
    }

    @Test func aPlainSQLiteFileIsNeverWiped() async throws {
        let directory = TemporaryDirectory()
        let plain = directory.file("app.sqlite")
        let sqlite = try #require(CLI.tool("sqlite3"))
        #expect(try await CLI.spawn(sqlite, [plain, "CREATE TABLE notes(body TEXT);"]).status == 0)
        let key = directory.file("k")
        #expect(try await CLI.run(["keygen", "--key-file", key]).status == 0)
        let result = try await CLI.run(["wipe", "--yes", "--vault", plain, "--key-file", key])
        #expect(result.status == 1)
        #expect(result.isOneLineError)
        #expect(result.stderr.contains("plain, unencrypted SQLite database"))
        #expect(FileManager.default.fileExists(atPath: plain))
    }
}
