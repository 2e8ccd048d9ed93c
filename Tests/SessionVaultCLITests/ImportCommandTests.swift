import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault import")
struct ImportCommandTests {
    @Test func importsAGoTrueResponseIntoANewVault() async throws {
        let vault = CLIVault()
        let result = try await vault.run(["import"], ["--now", Fixtures.signIn, "--biometric"], stdin: Fixtures.goTrueJSON())
        #expect(result.status == 0)
        #expect(result.stdout.contains("created \(vault.path)"))
        #expect(result.stdout.contains("user-123, tenant tenant-9, roles peer_mentor"))
        #expect(result.stdout.contains("biometric      enabled"))
        #expect(result.stdout.contains("resume path    valid"))
        #expect(result.stdout.contains("expires 2027-01-15T09:00:00.000Z"))
        #expect(!result.leaksToken)
        #expect(vault.exists(vault.path))
        #expect(vault.exists(vault.header))
        #expect(vault.exists(vault.keyPath), "import with a new key file creates the key")
        // The database on disk holds no token in the clear.
        let bytes = FileManager.default.contents(atPath: vault.path) ?? Data()
        let inClear = Fixtures.tokenMarkers.contains { bytes.range(of: Data($0.utf8)) != nil }
        #expect(!inClear)
    }

    @Test func importsAnRFC6749ResponseAsJSON() async throws {
        let vault = CLIVault()
        let result = try await vault.run(["import"], ["--now", Fixtures.signIn, "--json"], stdin: Fixtures.oauthJSON())
        #expect(result.status == 0)
        let json = try #require(result.json)
        #expect(json["created"] as? Bool == true)
        #expect(json["path"] as? String == "valid")
        let session = try #require(json["session"] as? [String: Any])
        #expect(session["subject"] as? String == "oauth-user")
        #expect(session["issuer"] as? String == "https://idp.example")
        #expect(session["scope"] as? String == "openid email")
        #expect((session["refreshTokenFingerprint"] as? String)?.count == 16)
        #expect(session["accessExpiresAt"] as? String == "2027-01-15T08:10:00.000Z")
        #expect(!result.leaksToken)
    }

    @Test func aSecondImportReplacesTheSession() async throws {
        let vault = try await CLIVault.signedIn()
        let first = try await vault.run(["inspect"], ["--json"]).json?["sessions"] as? [[String: Any]]
        let result = try await vault.run(
            ["import"], ["--now", "2027-01-15T08:30:00Z", "--json"],
            stdin: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2"))
        #expect(result.status == 0)
        #expect(result.json?["created"] as? Bool == false)
        let sessions = try await #require(try vault.run(["inspect"], ["--json"]).json?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions.first?["id"] as? String != first?.first?["id"] as? String)
        #expect(sessions.first?["refreshTokenFingerprint"] as? String != first?.first?["refreshTokenFingerprint"] as? String)
    }

    @Test func unreadableJSONIsRefusedAndCreatesNothing() async throws {
        let vault = CLIVault()
        let cases: [(Data, String)] = [
            (Data("not json at all".utf8), "not a JSON object"),
            (Data(), "standard input is empty"),
            (Data(#"{"token_type":"bearer"}"#.utf8), "has no access_token"),
            (Data(#"{"access_token":"opaque","expires_in":60}"#.utf8), "names no user"),
            (Data(#"{"access_token":"a","expires_in":"soon","user":{"id":"u"}}"#.utf8), "expires_in")
        ]
        for (input, message) in cases {
            let result = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: input)
            #expect(result.status == 1, "input expecting \(message)")
            #expect(result.isOneLineError, "input expecting \(message)")
            #expect(result.stderr.contains(message))
            #expect(result.stdout.isEmpty)
        }
        #expect(!vault.exists(vault.path))
        #expect(!vault.exists(vault.keyPath))
    }

    @Test func passphraseOnTheFirstLineThenTheResponse() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("p.db")
        var input = Data("a long passphrase for the test\n".utf8)
        input.append(Fixtures.goTrueJSON())
        let imported = try await CLI.run(["import", "--vault", path, "--passphrase-stdin", "--now", Fixtures.signIn], stdin: input)
        #expect(imported.status == 0)
        #expect(!imported.stdout.contains("a long passphrase"))

        let resumed = try await CLI.run(
            ["resume", "--vault", path, "--passphrase-stdin", "--now", Fixtures.signIn, "--json"],
            stdin: Data("a long passphrase for the test\n".utf8))
        #expect(resumed.status == 0)
        #expect(resumed.json?["path"] as? String == "valid")

        let wrong = try await CLI.run(
            ["resume", "--vault", path, "--passphrase-stdin", "--now", Fixtures.signIn, "--json"],
            stdin: Data("not the passphrase\n".utf8))
        #expect(wrong.status == 2)
        #expect(wrong.json?["path"] as? String == "corrupted")
        #expect(wrong.json?["reason"] as? String == "wrongKey")
        #expect(FileManager.default.fileExists(atPath: path), "a wrong passphrase never wipes")

        let inspected = try await CLI.run(
            ["inspect", "--vault", path, "--passphrase-stdin", "--json"],
            stdin: Data("a long passphrase for the test\n".utf8))
        #expect((inspected.json?["header"] as? [String: Any])?["keyDerivation"] as? String == "argon2id")
    }

    @Test func intoACorruptedVaultFails() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        let result = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON())
        #expect(result.status == 1)
        #expect(result.isOneLineError)
        #expect(result.stderr.contains("vault corrupted: notADatabase"))
        #expect(result.stderr.contains("sessionvault resume"))
    }
}
