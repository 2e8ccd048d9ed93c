import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault export-key and the stock sqlcipher shell")
struct ExportKeyCommandTests {
    /// The pinned settings after the key line, in order.
    static let settings = """
        PRAGMA cipher_page_size = 4096;
        PRAGMA kdf_iter = 64000;
        PRAGMA cipher_hmac_algorithm = HMAC_SHA1;
        PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;

        """

    /// `PRAGMA key = "x'<64 lower-case hex>'";`, a newline, then the settings, nothing else.
    /// Checked without ever putting the key into a failure message.
    static func isPragmaLine(_ text: String) -> Bool {
        let prefix = "PRAGMA key = \"x'", suffix = "'\";\n" + settings
        guard text.hasPrefix(prefix), text.hasSuffix(suffix), text.utf8.count == prefix.utf8.count + 64 + suffix.utf8.count else { return false }
        let hex = text.dropFirst(prefix.count).dropLast(suffix.count)
        return hex.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// The SQLCipher 4.x shell another branch builds into the package directory, when present.
    static let sqlcipher4: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shell = root.appendingPathComponent(".build-sqlcipher4/bin/sqlcipher").path
        return FileManager.default.isExecutableFile(atPath: shell) ? shell : nil
    }()

    @Test func theLineOpensTheVaultInTheSqlcipherShellButPlainSqliteCannot() async throws {
        let vault = try await CLIVault.signedIn()
        let exported = try await vault.run(["export-key"], ["--format", "sqlcipher"])
        #expect(exported.status == 0)
        let wellFormed = Self.isPragmaLine(exported.stdout)
        #expect(wellFormed, "stdout is not a single PRAGMA key line")
        #expect(exported.stderr.hasPrefix("Warning: "))
        #expect(exported.stderr.contains("database key"))
        let keyInWarning = exported.stderr.contains(String(exported.stdout.dropFirst(16).prefix(64)))
        #expect(!keyInWarning)

        let sqlcipher = try #require(CLI.tool("sqlcipher"), "apt package sqlcipher (make deps installs it)")
        // Pasted as is, nothing added: the recipe is complete.
        let script = exported.stdout + "SELECT subject, tenant, length(refresh_token) > 0 FROM sessions;\n"
        let shell = try await CLI.spawn(sqlcipher, [vault.path], stdin: Data(script.utf8))
        #expect(shell.status == 0, "sqlcipher: \(shell.stderr)")
        // A 4.x shell answers `PRAGMA key` with "ok"; 3.x answers nothing.
        let rows = shell.stdout.split(separator: "\n").filter { $0 != "ok" }
        #expect(rows == ["user-123|tenant-9|1"])
        let leaked = shell.stdout.contains(Fixtures.refreshMarker)
        #expect(!leaked, "the sealed token must stay sealed in the shell")
        // The 4.x leg runs wherever that shell has been built (it prints "ok" for the key).
        if let sqlcipher4 = Self.sqlcipher4 {
            let four = try await CLI.spawn(sqlcipher4, [vault.path], stdin: Data(script.utf8))
            #expect(four.status == 0, "sqlcipher 4: \(four.stderr)")
            #expect(four.stdout.hasSuffix("user-123|tenant-9|1\n"))
        }

        let withoutKey = try await CLI.spawn(sqlcipher, [vault.path], stdin: Data("PRAGMA cipher_page_size = 4096;\nSELECT count(*) FROM sessions;\n".utf8))
        #expect(withoutKey.stdout.isEmpty)
        #expect(withoutKey.stderr.contains("not a database"))

        let sqlite3 = try #require(CLI.tool("sqlite3"), "apt package sqlite3")
        let plain = try await CLI.spawn(sqlite3, [vault.path, "SELECT count(*) FROM sessions;"])
        #expect(plain.status != 0)
        #expect(plain.stdout.isEmpty)
        #expect(plain.stderr.contains("not a database"))
    }

    @Test func aWrongOrMissingKeyExitsTwoAndPrintsNothing() async throws {
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        let wrong = try await CLI.run(["export-key", "--format", "sqlcipher", "--vault", vault.path, "--key-file", otherKey])
        #expect(wrong.status == 2)
        #expect(wrong.stdout.isEmpty)
        #expect(wrong.isOneLineError)
        let missing = try await CLI.run(["export-key", "--format", "sqlcipher", "--vault", vault.path, "--key-file", vault.directory.file("gone.key")])
        #expect(missing.status == 2)
        #expect(missing.stdout.isEmpty)
    }

    @Test func theKeyOfADamagedVaultCanStillBeExported() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase(at: 5000)
        let exported = try await vault.run(["export-key"], ["--format", "sqlcipher"])
        #expect(exported.status == 0)
        let wellFormed = Self.isPragmaLine(exported.stdout)
        #expect(wellFormed)
    }

    @Test func formatDefaultsToSqlcipherAndJSONHoldsTheStatements() async throws {
        let vault = try await CLIVault.signedIn()
        let noFormat = try await vault.run(["export-key"])
        #expect(noFormat.status == 0)
        let wellFormed = Self.isPragmaLine(noFormat.stdout)
        #expect(wellFormed)
        let json = try await vault.run(["export-key"], ["--format", "sqlcipher", "--json"])
        #expect(json.status == 0)
        let statements = json.json?["statements"] as? [String] ?? []
        let sameAsText = statements.joined(separator: "\n") + "\n" == noFormat.stdout
        #expect(sameAsText, "--json holds the same statements as the text")
        #expect(json.json?["vault"] as? String == vault.path)
        let otherFormat = try await vault.run(["export-key"], ["--format", "hex"])
        #expect(otherFormat.status == 64)
        #expect(otherFormat.stdout.isEmpty)
    }
}
