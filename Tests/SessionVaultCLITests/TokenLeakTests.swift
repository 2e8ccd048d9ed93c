import Foundation
import Testing
import SessionVaultTestSupport

/// No command prints a token: every command's text and JSON output, on a vault holding the
/// marker tokens, is scanned for them (`export-key` prints the database key, not a token).
@Suite("sessionvault never prints a token")
struct TokenLeakTests {
    @Test func noCommandOutputContainsATokenMarker() async throws {
        let vault = CLIVault()
        var results: [CLIResult] = []
        for json in [false, true] {
            let flag = json ? ["--json"] : []
            await results.append(try vault.run(["import"], ["--now", Fixtures.signIn, "--biometric"] + flag, stdin: Fixtures.goTrueJSON()))
            await results.append(try vault.run(["resume"], ["--now", "2027-01-15T08:10:00Z"] + flag))
            await results.append(try vault.run(["resume"], ["--now", "2027-01-15T08:50:00Z"] + flag))
            await results.append(try vault.run(["inspect"], ["--now", "2027-01-15T08:10:00Z"] + flag))
            await results.append(try vault.run(["verify"], flag))
            await results.append(try vault.run(["events"], flag))
            await results.append(try vault.run(["biometric", "disable"], flag))
            await results.append(try vault.run(["import"], ["--now", Fixtures.signIn] + flag, stdin: Fixtures.oauthJSON()))
            await results.append(try vault.run(["logout"], flag))
        }
        await results.append(try vault.run(["export-key"], ["--format", "sqlcipher"]))
        let statuses = results.map(\.status)
        #expect(statuses.allSatisfy { $0 == 0 })
        let leaks = results.filter(\.leaksToken).count
        #expect(leaks == 0)
    }
}
