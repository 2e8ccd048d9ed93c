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
        #expect(
            events.map { $0["at"] as? String } == [
                "2027-01-15T08:00:00.000Z", "2027-01-15T08:01:00.000Z", "2027-01-15T08:02:00.000Z", "2027-01-15T08:03:00.000Z"
            ])
        #expect((events.first?["fingerprint"] as? String)?.count == 16)
        #expect(events.last?["reason"] as? String == "signedOut")

        let limited = try await vault.run(["events"], ["--limit", "2", "--json"])
        #expect((limited.json?["events"] as? [[String: Any]])?.map { $0["event"] as? String } == ["biometricDisabled", "signedOut"])

        let text = try await vault.run(["events"])
        let lines = text.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("TIME                      EVENT") == true)
        #expect(lines.count == 5)
        #expect(lines.last?.hasPrefix("2027-01-15T08:03:00.000Z  signedOut") == true)
    }

    /// The events timeline: a window in time, in time order, whole session IDs and fingerprints.
    @Test func aTimelineWindowWithSinceAndUntil() async throws {
        let vault = try await CLIVault.signedIn()
        await #expect(try vault.run(["biometric", "enable"], ["--now", "2027-01-15T08:01:00Z"]).status == 0)
        await #expect(try vault.run(["biometric", "disable"], ["--now", "2027-01-15T08:02:00Z"]).status == 0)
        await #expect(try vault.run(["logout"], ["--now", "2027-01-15T08:03:00Z"]).status == 0)

        let window = try await vault.run(["events"], ["--since", "2027-01-15T08:01:00Z", "--until", "1800000120", "--json"])
        #expect(window.status == 0)
        let events = try #require(window.json?["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["biometricEnabled", "biometricDisabled"])
        #expect(window.json?["since"] as? String == "2027-01-15T08:01:00.000Z")

        let all = try await vault.run(["events"], ["--json"])
        let times = (all.json?["events"] as? [[String: Any]] ?? []).compactMap { $0["at"] as? String }
        #expect(times == times.sorted(), "the timeline is in time order")
        let session = try #require((all.json?["events"] as? [[String: Any]])?.first?["sessionID"] as? String)
        let text = try await vault.run(["events"], ["--since", "2027-01-15T08:00:00Z"])
        #expect(text.stdout.contains(session), "the whole session ID, to match server logs")
        #expect(text.stdout.contains("FINGERPRINT"))

        let empty = try await vault.run(["events"], ["--since", "2030-01-01T00:00:00Z"])
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("in that window"))
        let backwards = try await vault.run(["events"], ["--since", "2027-01-16T00:00:00Z", "--until", "2027-01-15T00:00:00Z"])
        #expect(backwards.status == 64)
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
