import Foundation
import Testing
import SessionVaultTestSupport

@Suite("sessionvault demo")
struct DemoCommandTests {
    @Test func theTourShowsEveryPathInOrderAndRunsAgainCleanly() async throws {
        let directory = TemporaryDirectory()
        let demo = directory.file("tour")
        for run in 1...2 {
            let result = try await CLI.run(["demo", "--dir", demo])
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            #expect(result.stderr.isEmpty, "run \(run)")
            let output = result.stdout
            let arrows = output.split(separator: "\n").filter { $0.contains("→ ") }.map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(
                arrows == [
                    "→ valid",
                    "→ expired    accessTokenExpired",
                    "→ missing    refreshTokenExpired",
                    "→ corrupted  notADatabase",
                    "→ missing    wipedAfterCorruption:notADatabase"
                ], "run \(run)")
            #expect(output.range(of: "Schema version [0-9]+", options: .regularExpression) != nil)
            #expect(output.contains("Tombstone\n  notADatabase at "))
            #expect(output.contains("empty reason          wipedAfterCorruption:notADatabase"))
            // The tour's sample tokens never reach the screen.
            let leaked = ["demo-refresh", "demo-signature", "eyJ"].contains { output.contains($0) }
            #expect(!leaked)
        }
        #expect(FileManager.default.fileExists(atPath: demo + "/vault.db"))
        #expect(FileManager.default.fileExists(atPath: demo + "/vault.key"))
    }

    /// `demo --json` (the demo had no JSON form): one JSON document carrying the tour's facts.
    @Test func theTourAsOneJSONDocument() async throws {
        let directory = TemporaryDirectory()
        let demo = directory.file("tour")
        let result = try await CLI.run(["demo", "--dir", demo, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let json = try #require(result.json, "stdout is one JSON object")
        #expect(json["vault"] as? String == demo + "/vault.db")
        #expect(json["keyFile"] as? String == demo + "/vault.key")
        let steps = try #require(json["steps"] as? [[String: Any]])
        #expect(steps.map { $0["step"] as? Int } == Array(1...9))
        #expect(steps.allSatisfy { $0["title"] is String && $0["facts"] is [String: Any] && $0["notes"] is [Any] })
        // The launches, in order, as resume --json reports a path.
        let paths = steps.compactMap { $0["path"] as? [String: Any] }
        #expect(
            paths.map { "\($0["path"] as? String ?? "?") \($0["reason"] as? String ?? "-")" } == [
                "valid -", "expired accessTokenExpired", "missing refreshTokenExpired", "corrupted notADatabase",
                "missing wipedAfterCorruption:notADatabase"
            ])
        #expect(paths.allSatisfy { $0["app"] is String })
        // The tour's clock: it starts at startedAt and moves by hand, 31 days by step 5.
        let start = try #require(json["startedAt"] as? String)
        let at = steps.compactMap { $0["at"] as? String }
        #expect(at.count == 9 && at.first == start && at == at.sorted())
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let startDate = try #require(formatter.date(from: start)), fifth = try #require(formatter.date(from: at[4]))
        #expect(abs(fifth.timeIntervalSince(startDate) - 31 * 86_400) < 0.002)
        // Facts: the key file, the session (fingerprints only), the damage, the tombstone.
        let facts = steps.map { $0["facts"] as? [String: Any] ?? [:] }
        #expect((facts[0]["keyFile"] as? [String: Any])?["mode"] as? String == "0600")
        let session = try #require(facts[1]["session"] as? [String: Any])
        #expect(session["subject"] as? String == "5b0e1c2a-7d43-4f6e-9a81-3c2d4e5f6a7b")
        #expect((session["refreshTokenFingerprint"] as? String)?.count == 16)
        #expect((facts[5]["damaged"] as? [String: Any])?["page"] as? Int == 1)
        #expect((facts[6]["tombstone"] as? [String: Any])?["reason"] as? String == "notADatabase")
        // The last step holds what inspect --json shows of the fresh vault.
        let inspection = try #require(steps[8]["inspection"] as? [String: Any])
        // The newest shipped migration, whichever that is: the shape, not the count.
        let versions = (inspection["migrations"] as? [[String: Any]] ?? []).compactMap { $0["version"] as? Int }
        #expect(!versions.isEmpty && inspection["schemaVersion"] as? Int == versions.last)
        #expect((inspection["state"] as? [String: Any])?["emptyReason"] as? String == "wipedAfterCorruption:notADatabase")
        #expect((json["tryIt"] as? String)?.contains("resume --vault") == true)
        let leaked = ["demo-refresh", "demo-signature", "eyJ"].contains { result.stdout.contains($0) }
        #expect(!leaked)

        // An error is the JSON error object the other commands print, and one Error: line.
        let file = directory.file("plain")
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let failed = try await CLI.run(["demo", "--dir", file, "--json"])
        #expect(failed.status == 1)
        #expect(failed.isOneLineError)
        let error = try #require(failed.json?["error"] as? [String: Any])
        #expect(error["status"] as? Int == 1)
        #expect((error["message"] as? String)?.contains("is not a directory") == true)
        #expect(failed.json?.count == 1, "only the error object: no half-finished tour")
    }

    @Test func itOnlyRemovesItsOwnFiles() async throws {
        let directory = TemporaryDirectory()
        let keep = directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: keep, contents: Data("mine".utf8))
        let result = try await CLI.run(["demo", "--dir", directory.path])
        #expect(result.status == 0)
        #expect(FileManager.default.contents(atPath: keep) == Data("mine".utf8))
    }

    @Test func aFileInsteadOfADirectoryIsAnError() async throws {
        let directory = TemporaryDirectory()
        let file = directory.file("plain")
        _ = FileManager.default.createFile(atPath: file, contents: Data())
        let result = try await CLI.run(["demo", "--dir", file])
        #expect(result.status == 1)
        #expect(result.isOneLineError)
    }
}
