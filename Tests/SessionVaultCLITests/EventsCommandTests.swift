import Foundation
import Testing

@Suite("sessionvault events, logout, biometric")
struct EventsCommandTests {
    @Test func theAuditLogFollowsWhatHappened() async throws {
        let vault = try await CLIVault.signedIn()
        await #expect(try vault.run(["biometric", "enable"], ["--now", "2027-01-15T08:01:00Z"]).status == 0)
        await #expect(try vault.run(["biometric", "disable"], ["--now", "2027-01-15T08:02:00Z"]).status == 0)
        await #expect(try vault.run(["logout"], ["--now", "2027-01-15T08:03:00Z"]).status == 0)

        let result = try await vault.run(["events"], ["--json"])
        #expect(result.status == 0)
        #expect(!result.leaksToken)
        let events = try #require(result.json?["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["stored", "biometricEnabled", "biometricDisabled", "signedOut"])
        #expect(events.map { $0["at"] as? String } == ["2027-01-15T08:00:00Z", "2027-01-15T08:01:00Z", "2027-01-15T08:02:00Z", "2027-01-15T08:03:00Z"])
        #expect((events.first?["fingerprint"] as? String)?.count == 16)
        #expect(events.last?["reason"] as? String == "signedOut")

        let limited = try await vault.run(["events"], ["--limit", "2", "--json"])
        #expect((limited.json?["events"] as? [[String: Any]])?.map { $0["event"] as? String } == ["biometricDisabled", "signedOut"])

        let text = try await vault.run(["events"])
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("TIME                  EVENT") == true)
        #expect(lines.count == 5)
        #expect(lines.last?.hasPrefix("2027-01-15T08:03:00Z  signedOut") == true)
    }

    @Test func limitMustBePositive() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["events"], ["--limit", "0"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--limit must be at least 1"))
    }

    @Test func logoutMakesTheNextResumeMissing() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["logout"], ["--now", "2027-01-15T08:05:00Z", "--json"])
        #expect(result.status == 0)
        #expect(result.json?["path"] as? String == "missing")
        #expect(result.json?["reason"] as? String == "signedOut")
        #expect((result.json?["signedOutSession"] as? String)?.count == 32)
        let resumed = try await vault.run(["resume"], ["--now", "2027-01-15T08:06:00Z", "--json"])
        #expect(resumed.json?["path"] as? String == "missing")
        #expect(resumed.json?["reason"] as? String == "signedOut")
        let again = try await vault.run(["logout"], ["--now", "2027-01-15T08:07:00Z"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("no current session"))
    }

    @Test func biometricTogglesTheStoredFlag() async throws {
        let vault = try await CLIVault.signedIn()
        func flag() async throws -> Bool? {
            await ((try vault.run(["inspect"], ["--json"]).json?["sessions"] as? [[String: Any]])?.first?["biometricEnabled"]) as? Bool
        }
        await #expect(try flag() == false)
        let enabled = try await vault.run(["biometric", "enable"])
        #expect(enabled.status == 0)
        #expect(enabled.stdout.contains("biometric unlock enabled for session"))
        await #expect(try flag() == true)
        await #expect(try vault.run(["biometric", "disable"], ["--json"]).json?["biometricEnabled"] as? Bool == false)
        await #expect(try flag() == false)
    }

    @Test func biometricNeedsEnableOrDisable() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["biometric", "maybe"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("maybe"))
    }
}
