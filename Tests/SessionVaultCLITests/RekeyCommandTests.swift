import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault rekey")
struct RekeyCommandTests {
    @Test func theOldKeyNoLongerOpensTheVaultAndTheNewOneDoes() async throws {
        let vault = try await CLIVault.signedIn()
        let newKey = vault.directory.file("new.key")
        #expect(try await CLI.run(["keygen", "--key-file", newKey]).status == 0)
        let before = try await #require(try vault.run(["inspect"], ["--json"]).json?["sessions"] as? [[String: Any]])

        let result = try await vault.run(["rekey"], ["--new-key-file", newKey])
        #expect(result.status == 0, "rekey: \(result.stderr)")
        #expect(result.stdout.contains("re-encrypted"))

        let withOld = try await vault.run(["inspect"])
        #expect(withOld.status == 2)
        #expect(withOld.stderr.contains("wrongKey"))

        let withNew = try await CLI.run(["inspect", "--vault", vault.path, "--key-file", newKey, "--json"])
        #expect(withNew.status == 0)
        let after = try #require(withNew.json?["sessions"] as? [[String: Any]])
        #expect(after.first?["id"] as? String == before.first?["id"] as? String)
        #expect(after.first?["refreshTokenFingerprint"] as? String != nil)

        let resumed = try await CLI.run(["resume", "--vault", vault.path, "--key-file", newKey, "--now", Fixtures.signIn, "--json"])
        #expect(resumed.json?["path"] as? String == "valid")
    }

    @Test func theNewKeyMustDifferAndTheVaultMustExist() async throws {
        let vault = try await CLIVault.signedIn()
        let same = try await vault.run(["rekey"], ["--new-key-file", vault.keyPath])
        #expect(same.status == 64)
        let absent = CLIVault()
        let none = try await absent.run(["rekey"], ["--new-key-file", absent.directory.file("n.key")])
        #expect(none.status == 1)
        #expect(none.isOneLineError)
        #expect(none.stderr.contains("no vault at"))
    }
}
