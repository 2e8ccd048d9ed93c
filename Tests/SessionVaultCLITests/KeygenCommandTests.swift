import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault keygen")
struct KeygenCommandTests {
    @Test func createsAPrivateKeyFile() async throws {
        let directory = TemporaryDirectory()
        let key = directory.file("root.key")
        let result = try await CLI.run(["keygen", "--key-file", key])
        #expect(result.status == 0)
        #expect(result.stdout.contains("created key file \(key)"))
        #expect(result.stderr.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 56)
    }

    @Test func refusesToOverwrite() async throws {
        let directory = TemporaryDirectory()
        let key = directory.file("root.key")
        #expect(try await CLI.run(["keygen", "--key-file", key]).status == 0)
        let before = FileManager.default.contents(atPath: key)
        let again = try await CLI.run(["keygen", "--key-file", key, "--json"])
        #expect(again.status == 1)
        #expect(again.isOneLineError)
        #expect(again.stderr.contains("already exists"))
        #expect(FileManager.default.contents(atPath: key) == before)
    }

    @Test func jsonNamesTheFile() async throws {
        let directory = TemporaryDirectory()
        let key = directory.file("k")
        let result = try await CLI.run(["keygen", "--key-file", key, "--json"])
        #expect(result.status == 0)
        #expect(result.json?["keyFile"] as? String == key)
        #expect(result.json?["mode"] as? String == "0600")
    }

    @Test func aBareFileNameWorksInTheCurrentDirectory() async throws {
        // Foundation's path helpers trap on a bare name on Linux; the CLI must not.
        let directory = TemporaryDirectory()
        let result = try await CLI.run(["keygen", "--key-file", "plain.key"], in: directory.path)
        #expect(result.status == 0)
        #expect(!result.crashed)
        #expect(FileManager.default.fileExists(atPath: directory.file("plain.key")))
    }

    @Test func badPathsAreOneLineErrors() async throws {
        let directory = TemporaryDirectory()
        let missingDirectory = try await CLI.run(["keygen", "--key-file", directory.file("nowhere/k")])
        #expect(missingDirectory.status == 1)
        #expect(missingDirectory.isOneLineError)
        #expect(missingDirectory.stderr.contains("does not exist"))

        let isDirectory = try await CLI.run(["keygen", "--key-file", directory.path])
        #expect(isDirectory.status == 1)
        #expect(isDirectory.isOneLineError)
        #expect(isDirectory.stderr.contains("is a directory"))
    }

    @Test func missingKeyFileOptionIsAUsageError() async throws {
        let result = try await CLI.run(["keygen"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--key-file"))
        #expect(result.stderr.contains("--help"))
    }
}
