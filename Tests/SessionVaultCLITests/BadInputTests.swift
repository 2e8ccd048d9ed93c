import Foundation
import Testing
import SessionVaultTestSupport

/// Bad input gets a one-line error naming the problem: never a crash or a stack trace, and
/// never a wipe of something that may not be a vault.
@Suite("sessionvault bad input")
struct BadInputTests {
    @Test func aDirectoryAsTheVault() async throws {
        let vault = try await CLIVault.signedIn()
        for command in [["inspect"], ["resume"], ["verify"], ["events"], ["wipe", "--yes"]] {
            let result = try await CLI.run(command + ["--vault", vault.directory.path, "--key-file", vault.keyPath])
            #expect(result.status == 1, "\(command)")
            #expect(result.isOneLineError, "\(command)")
            #expect(result.stderr.contains("is a directory"), "\(command)")
        }
        #expect(vault.exists(vault.path))
    }

    @Test func keyFilesOfTheWrongModeLengthOrKind() async throws {
        let vault = try await CLIVault.signedIn()
        let loose = vault.directory.file("loose.key")
        #expect(try await CLI.run(["keygen", "--key-file", loose]).status == 0)
        #expect(chmod(loose, 0o644) == 0)
        let short = vault.directory.file("short.key")
        _ = FileManager.default.createFile(atPath: short, contents: Data(repeating: 7, count: 32), attributes: [.posixPermissions: 0o600])
        let cases: [(String, String)] = [
            (loose, "mode 644; expected 600"),
            // Not our magic: a file that is not a key file of ours is a misconfiguration.
            (short, "is not a SessionVault key file"),
            (vault.directory.path, "is not a regular file")
        ]
        for (key, message) in cases {
            for (command, status) in [(["resume"], Int32(2)), (["inspect"], 2), (["verify"], 2), (["export-key", "--format", "sqlcipher"], 2)] {
                let result = try await CLI.run(command + ["--vault", vault.path, "--key-file", key])
                #expect(result.status == status, "\(command) with \(message)")
                #expect(result.isOneLineError, "\(command) with \(message)")
                #expect(result.stderr.contains(message), "\(command) with \(message)")
                #expect(result.stdout.isEmpty)
            }
        }
        #expect(vault.exists(vault.path) && vault.exists(vault.keyPath), "a bad key file never leads to a wipe")
    }

    @Test func databasesThatAreNotVaults() async throws {
        let directory = TemporaryDirectory()
        let key = directory.file("k")
        #expect(try await CLI.run(["keygen", "--key-file", key]).status == 0)
        let plain = directory.file("app.sqlite")
        let sqlite = try #require(CLI.tool("sqlite3"))
        #expect(try await CLI.spawn(sqlite, [plain, "CREATE TABLE t(a);"]).status == 0)
        let text = directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: text, contents: Data("hello\n".utf8))

        let plainResult = try await CLI.run(["inspect", "--vault", plain, "--key-file", key])
        #expect(plainResult.status == 1)
        #expect(plainResult.isOneLineError)
        #expect(plainResult.stderr.contains("plain, unencrypted SQLite database"))

        let textResult = try await CLI.run(["inspect", "--vault", text, "--key-file", key])
        #expect(textResult.status == 1)
        #expect(textResult.isOneLineError)
        #expect(textResult.stderr.contains("not a SessionVault vault"))

        // resume refuses a file with no header of ours beside it (it cannot be proven the
        // vault's): a misconfiguration, nothing written or wiped.
        let resumed = try await CLI.run(["resume", "--vault", text, "--key-file", key, "--json"])
        #expect(resumed.status == 1)
        #expect(resumed.isOneLineError)
        #expect(resumed.stderr.contains("misconfigured"))
        #expect(FileManager.default.contents(atPath: text) == Data("hello\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: text + "-header") && !FileManager.default.fileExists(atPath: text + "-tombstone"))
        #expect(FileManager.default.fileExists(atPath: key))
    }

    @Test func usageErrorsExit64WithAHelpHint() async throws {
        let vault = CLIVault()
        let cases: [[String]] = [
            ["bogus"],
            ["resume"],
            ["resume", "--vault", vault.path],
            ["resume", "--vault", vault.path, "--key-file", vault.keyPath, "--passphrase-stdin"],
            ["resume", "--vault", vault.path, "--key-file", vault.keyPath, "--now", "yesterday"],
            ["inspect", "--vault", vault.path, "--key-file", vault.keyPath, "--events", "-1"]
        ]
        for arguments in cases {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments)")
            #expect(result.stderr.contains("--help"), "\(arguments)")
            #expect(!result.crashed)
        }
    }

    @Test func helpAndVersion() async throws {
        let help = try await CLI.run(["--help"])
        #expect(help.status == 0)
        for command in ["keygen", "import", "resume", "inspect", "verify", "events", "logout", "biometric", "rekey", "wipe", "export-key", "demo"] {
            #expect(help.stdout.contains("  \(command)"), "\(command) listed")
        }
        let version = try await CLI.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "0.1.0\n")
    }

    @Test func bareFileNamesInTheCurrentDirectory() async throws {
        let directory = TemporaryDirectory()
        let imported = try await CLI.run(
            ["import", "--vault", "v.db", "--key-file", "v.key", "--now", Fixtures.signIn],
            stdin: Fixtures.goTrueJSON(), in: directory.path)
        #expect(imported.status == 0)
        #expect(!imported.crashed)
        let resumed = try await CLI.run(["resume", "--vault", "v.db", "--key-file", "v.key", "--now", Fixtures.signIn, "--json"], in: directory.path)
        #expect(resumed.json?["path"] as? String == "valid")
    }
}
