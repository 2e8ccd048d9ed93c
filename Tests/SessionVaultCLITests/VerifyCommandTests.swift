import Foundation
import Testing

@Suite("sessionvault verify")
struct VerifyCommandTests {
    @Test func anIntactVaultExitsZero() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["verify"], ["--json"])
        #expect(result.status == 0)
        let json = try #require(result.json)
        #expect(json["intact"] as? Bool == true)
        #expect(json["pagesScanned"] is Int)
        #expect((json["findings"] as? [Any])?.isEmpty == true)
        let text = try await vault.run(["verify"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("result         intact"))
    }

    @Test func damageFoundAtOpenExitsOne() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        let result = try await vault.run(["verify"], ["--json"])
        #expect(result.status == 1)
        let json = try #require(result.json)
        #expect(json["intact"] as? Bool == false)
        #expect(json["stage"] as? String == "open")
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(findings.first?["kind"] as? String == "notADatabase")
        #expect(findings.first?["detail"] is String)

        let text = try await vault.run(["verify"])
        #expect(text.status == 1)
        #expect(text.stdout.contains("damaged: 1 finding(s)"))
        #expect(text.stdout.contains("notADatabase"))
        #expect(vault.exists(vault.path), "verify never wipes")
    }

    @Test func aWrongOrMissingKeyExitsTwo() async throws {
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        let wrong = try await CLI.run(["verify", "--vault", vault.path, "--key-file", otherKey])
        #expect(wrong.status == 2)
        #expect(wrong.isOneLineError)
        let missing = try await CLI.run(["verify", "--vault", vault.path, "--key-file", vault.directory.file("gone.key")])
        #expect(missing.status == 2)
        #expect(missing.isOneLineError)
    }
}
