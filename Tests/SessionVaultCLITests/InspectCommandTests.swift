import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault inspect")
struct InspectCommandTests {
    @Test func jsonHasTheDocumentedShape() async throws {
        let vault = try await CLIVault.signedIn(biometric: true)
        let result = try await vault.run(["inspect"], ["--now", "2027-01-15T08:10:00Z", "--json"])
        #expect(result.status == 0)
        #expect(!result.leaksToken)
        let json = try #require(result.json)
        let cipher = try #require(json["cipher"] as? [String: Any])
        // The shape, not the engine: the suite runs on SQLCipher 3.4.1 and 4.x.
        let cipherVersion = try #require(cipher["version"] as? String)
        #expect(CLI.isVersion(cipherVersion), "cipher version \(cipherVersion)")
        #expect(cipher["pageSize"] as? Int == 4096)
        let sqliteVersion = try #require(json["sqliteVersion"] as? String)
        #expect(CLI.isVersion(sqliteVersion) && sqliteVersion.hasPrefix("3."), "SQLite version \(sqliteVersion)")
        // The shape, not the count: every shipped migration, in order, the newest as the version.
        let migrations = try #require(json["migrations"] as? [[String: Any]])
        let versions = migrations.compactMap { $0["version"] as? Int }
        #expect(versions.count >= 6 && versions == Array(1...versions.count))
        #expect(json["schemaVersion"] as? Int == versions.last)
        #expect(migrations.first?["name"] as? String == "create_sessions")
        #expect(migrations.allSatisfy { ($0["checksum"] as? String)?.count == 64 })
        let sessions = try #require(json["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        let session = try #require(sessions.first)
        #expect((session["id"] as? String)?.count == 32)
        #expect(session["subject"] as? String == "user-123")
        #expect(session["tenant"] as? String == "tenant-9")
        #expect((session["refreshTokenFingerprint"] as? String)?.count == 16)
        #expect(session["accessExpiresAt"] as? String == "2027-01-15T09:00:00.000Z")
        #expect(session["refreshExpiresAt"] as? String == "2027-02-14T08:00:00.000Z")
        #expect(session["biometricEnabled"] as? Bool == true)
        #expect(session["path"] as? String == "valid")
        #expect(session["current"] as? Bool == true)
        #expect(session.keys.contains("activeSubject"))
        #expect(json["tombstone"] is NSNull)
        let state = try #require(json["state"] as? [String: Any])
        #expect(state["currentSessionID"] as? String == session["id"] as? String)
        let files = try #require(json["files"] as? [String: Any])
        #expect(files["header"] as? Int == 256)
        #expect((files["database"] as? Int ?? 0) % 4096 == 0)
        let events = try #require(json["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["stored"])
        #expect(events.first?["fingerprint"] as? String == session["refreshTokenFingerprint"] as? String)
    }

    @Test func eachSessionShowsThePathItWouldTakeAtNow() async throws {
        let vault = try await CLIVault.signedIn()
        let later = try await vault.run(["inspect"], ["--now", "2027-03-01T00:00:00Z", "--json"])
        let sessions = try #require(later.json?["sessions"] as? [[String: Any]])
        #expect(sessions.first?["path"] as? String == "missing")
        #expect(sessions.first?["reason"] as? String == "refreshTokenExpired")
    }

    @Test func humanOutputHasEverySection() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["inspect"], ["--now", "2027-01-15T08:10:00Z"])
        #expect(result.status == 0)
        #expect(result.stdout.range(of: "\nSchema version [0-9]+", options: .regularExpression) != nil)
        for section in ["Engine", "Files", "Sessions (1)", "State", "Audit log", "Tombstone"] {
            #expect(result.stdout.contains("\n\(section)"), "section \(section)")
        }
        let engineLine = result.stdout.split(separator: "\n").first { $0.contains("SQLCipher ") && $0.contains(", page size 4096") }
        let engineVersion = engineLine.flatMap { $0.components(separatedBy: "SQLCipher ").last?.components(separatedBy: ",").first }
        #expect(engineVersion.map { CLI.isVersion($0) } == true, "engine line \(engineLine.map(String.init) ?? "missing")")
        #expect(result.stdout.contains("  1        create_sessions"))
        #expect(result.stdout.contains("  path           valid"))
        #expect(!result.leaksToken)
    }

    @Test func exitTwoForAWrongOrMissingKey() async throws {
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        let wrong = try await CLI.run(["inspect", "--vault", vault.path, "--key-file", otherKey])
        #expect(wrong.status == 2)
        #expect(wrong.isOneLineError)
        #expect(wrong.stderr.contains("wrongKey"))
        let missing = try await CLI.run(["inspect", "--vault", vault.path, "--key-file", vault.directory.file("gone.key")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("not this vault's key") && missing.stderr.contains("gone.key"))
    }

    @Test func exitOneForADamagedVaultWithWhatCouldBeRead() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        let result = try await vault.run(["inspect"], ["--json"])
        #expect(result.status == 1)
        #expect(result.isOneLineError)
        let json = try #require(result.json)
        #expect((json["corrupted"] as? [String: Any])?["kind"] as? String == "notADatabase")
        #expect((json["files"] as? [String: Any])?["header"] as? Int == 256)
        #expect(vault.exists(vault.path), "inspect never wipes")
    }

    @Test func aWipedVaultShowsItsTombstone() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        await #expect(try vault.run(["resume"], ["--now", Fixtures.signIn]).status == 0)
        let result = try await vault.run(["inspect"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("wiped"))
        #expect(result.stdout.contains("notADatabase at 2027-01-15T08:00:00.000Z"))
        let json = try await #require(try vault.run(["inspect"], ["--json"]).json)
        #expect((json["tombstone"] as? [String: Any])?["reason"] as? String == "notADatabase")
    }
}
