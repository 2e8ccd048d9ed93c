import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault resume")
struct ResumeCommandTests {
    @Test func walksValidExpiredMissingWithTheClock() async throws {
        let vault = try await CLIVault.signedIn()
        // ISO 8601 and Unix seconds both work for --now.
        let cases: [(String, String, String?)] = [
            ("2027-01-15T08:10:00Z", "valid", nil),
            ("\(Fixtures.signInSeconds + 40 * 60)", "expired", "idle"),
            ("2027-02-20T08:00:00Z", "missing", "refreshTokenExpired")
        ]
        for (now, path, reason) in cases {
            let result = try await vault.run(["resume"], ["--now", now, "--json"])
            #expect(result.status == 0)
            let json = try #require(result.json)
            #expect(json["path"] as? String == path, "at \(now)")
            #expect((json["reason"] as? String) == reason, "at \(now)")
            #expect(json.keys.contains("session"))
            if path == "missing" {
                #expect(json["session"] is NSNull)
            } else {
                let session = try #require(json["session"] as? [String: Any])
                #expect(session["subject"] as? String == "user-123")
            }
            #expect(!result.leaksToken)
        }
        #expect(vault.exists(vault.path))
    }

    @Test func humanOutputIsAlignedAndTellsWhatTheAppDoes() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["resume"], ["--now", "2027-01-15T08:10:00Z"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "path           valid")
        #expect(lines.contains("app            go straight home, no prompt"))
        #expect(lines.contains { $0.hasPrefix("access token   fp ") && $0.hasSuffix("expires 2027-01-15T09:00:00.000Z (in 50m)") })
        // Piped output has no colour codes.
        #expect(!result.stdout.contains("\u{1B}["))
    }

    @Test func anAbsentVaultIsMissingAndNothingIsCreated() async throws {
        let vault = CLIVault()
        let result = try await vault.run(["resume"], ["--json"])
        #expect(result.status == 0)
        #expect(result.json?["path"] as? String == "missing")
        #expect(result.json?["reason"] as? String == "neverSignedIn")
        #expect(!vault.exists(vault.path))
        #expect(!vault.exists(vault.keyPath))
    }

    @Test func corruptedRecoversWithATombstoneUnlessDryRun() async throws {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()

        let dry = try await vault.run(["resume"], ["--dry-run", "--json"])
        #expect(dry.status == 0)
        #expect(dry.json?["path"] as? String == "corrupted")
        #expect(dry.json?["reason"] as? String == "notADatabase")
        #expect(dry.json?["recovered"] as? Bool == false)
        #expect(vault.exists(vault.path) && vault.exists(vault.keyPath), "--dry-run changes nothing")

        let result = try await vault.run(["resume"], ["--now", Fixtures.signIn])
        #expect(result.status == 0)
        #expect(result.stdout.contains("path      corrupted"))
        #expect(result.stdout.contains("reason    notADatabase"))
        #expect(result.stdout.contains("now       missing (wipedAfterCorruption:notADatabase)"))
        #expect(!vault.exists(vault.path))
        #expect(!vault.exists(vault.header))
        #expect(!vault.exists(vault.keyPath), "the key is crypto-shredded")
        #expect(vault.exists(vault.tombstone))

        let after = try await vault.run(["resume"], ["--json"])
        #expect(after.status == 0)
        #expect(after.json?["path"] as? String == "missing")
        #expect(after.json?["reason"] as? String == "wipedAfterCorruption:notADatabase")
        #expect((after.json?["tombstone"] as? [String: Any])?["reason"] as? String == "notADatabase")
    }

    @Test func aWrongKeyIsReportedButNeverWiped() async throws {
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        let result = try await CLI.run(["resume", "--vault", vault.path, "--key-file", otherKey])
        #expect(result.status == 2)
        #expect(result.stdout.contains("path      corrupted"))
        #expect(result.stdout.contains("reason    wrongKey"))
        #expect(result.stdout.contains("not wiped"))
        #expect(result.stdout.contains("sessionvault wipe --yes --without-key --vault \(vault.path) --key-file \(otherKey)"))
        #expect(vault.exists(vault.path) && vault.exists(vault.header) && vault.exists(otherKey))
        #expect(!vault.exists(vault.tombstone))
    }

    /// A key file under another name than the one the vault names: not this vault's key, so its
    /// absence proves nothing. Both keys named, exit 2, nothing wiped.
    @Test func aMissingKeyFileIsReportedButNeverWiped() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await CLI.run(["resume", "--vault", vault.path, "--key-file", vault.directory.file("typo.key"), "--json"])
        #expect(result.status == 2)
        let message = ((result.json?["error"] as? [String: Any])?["message"] as? String) ?? result.stdout + result.stderr
        #expect(message.contains("this vault's key is key #") && message.contains("\"typo.key\""), "\(message)")
        #expect(vault.exists(vault.path) && vault.exists(vault.keyPath) && vault.exists(vault.header))
        #expect(!vault.exists(vault.tombstone))
    }

    @Test func aKeyOnAnAbsentVolumeIsUnavailable() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await CLI.run(["resume", "--vault", vault.path, "--key-file", vault.directory.file("unmounted/vault.key"), "--json"])
        #expect(result.status == 0)
        #expect(result.json?["path"] as? String == "unavailable")
        #expect(result.json?["retryAfter"] as? Double != nil)
        #expect(vault.exists(vault.path))
    }
}
