import Foundation
import Testing
import SessionVaultTestSupport

/// A wipe killed after the key file was overwritten with zeros and synced, before its unlink,
/// leaves 56 zero bytes at the key path beside an intact database and header. Every command
/// that meets it reaches a usable state (recovered, or missing), and a sign-in works afterwards.
@Suite("sessionvault on the remains of an interrupted wipe")
struct InterruptedWipeCommandTests {
    /// The remains, planted: with `tombstone`, the interrupted wipe was a recovery that had
    /// written its tombstone (reason notADatabase) before it shredded the key; without, a wipe
    /// the app asked for, whose record while it runs is a keyMissing tombstone.
    static func remains(tombstone: Bool) async throws -> CLIVault {
        let vault = try await CLIVault.signedIn()
        let json =
            tombstone
            ? #"{"detail":"planted: the first wipe's reason","reason":"notADatabase","version":"0.1.0","wipedAt":"2027-01-15T09:00:00Z"}"#
            : #"{"detail":"a wipe the app asked for was under way: it destroyed the key first","reason":"keyMissing","version":"0.1.0","wipedAt":"2027-01-15T09:00:00Z"}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: vault.tombstone))
        chmod(vault.tombstone, 0o600)
        try Data(repeating: 0, count: 56).write(to: URL(fileURLWithPath: vault.keyPath))
        chmod(vault.keyPath, 0o600)
        return vault
    }

    /// A sign-in through the CLI works, and resume then finds it.
    static func expectSignInWorks(_ vault: CLIVault, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let imported = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON())
        #expect(imported.status == 0, "import after the recovery: \(imported.stderr)", sourceLocation: sourceLocation)
        let resumed = try await vault.run(["resume"], ["--json", "--dry-run", "--now", Fixtures.signIn])
        #expect(resumed.json?["path"] as? String == "valid", "\(resumed.stdout) \(resumed.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [true, false])
    func resumeRecovers(tombstone: Bool) async throws {
        let vault = try await Self.remains(tombstone: tombstone)
        let result = try await vault.run(["resume"], ["--json", "--now", Fixtures.signIn])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.json?["recovered"] as? Bool == true, "\(result.stdout)")
        #expect(!result.stderr.contains("SVKEY"))
        #expect(!vault.exists(vault.path) && !vault.exists(vault.keyPath))
        let tombstoneReason = (result.json?["tombstone"] as? [String: Any])?["reason"] as? String
        #expect(tombstoneReason == (tombstone ? "notADatabase" : "keyMissing"), "\(result.stdout)")
        try await Self.expectSignInWorks(vault)
    }

    @Test func verifyReportsTheLostVaultAndPointsToTheRecovery() async throws {
        let vault = try await Self.remains(tombstone: true)
        let result = try await vault.run(["verify"], ["--now", Fixtures.signIn])
        #expect(result.status == 1, "\(result.stdout) \(result.stderr)")
        #expect(!result.stderr.contains("SVKEY"), "\(result.stderr)")
        #expect(result.stderr.contains("interrupted wipe"), "\(result.stderr)")
        // Read-only: it changed nothing; resume then recovers.
        #expect(vault.exists(vault.path) && vault.exists(vault.keyPath))
        #expect(try await vault.run(["resume"], ["--now", Fixtures.signIn]).status == 0)
        try await Self.expectSignInWorks(vault)
    }

    @Test(arguments: [["--yes"], ["--yes", "--without-key"]])
    func wipeFinishesTheJob(flags: [String]) async throws {
        let vault = try await Self.remains(tombstone: true)
        let result = try await vault.run(["wipe"], flags + ["--json", "--now", Fixtures.signIn])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.json?["wiped"] as? Bool == true)
        for file in [vault.path, vault.header, vault.keyPath] { #expect(!vault.exists(file), "\(file) remains") }
        #expect((result.json?["tombstone"] as? [String: Any])?["reason"] as? String == "notADatabase", "\(result.stdout)")
        try await Self.expectSignInWorks(vault)
    }
}
