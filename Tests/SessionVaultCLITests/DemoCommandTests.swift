import Foundation
import Testing

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
            #expect(arrows == [
                "→ valid",
                "→ expired    accessTokenExpired",
                "→ missing    refreshTokenExpired",
                "→ corrupted  notADatabase",
                "→ missing    wipedAfterCorruption:notADatabase",
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
