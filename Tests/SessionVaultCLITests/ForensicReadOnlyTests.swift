import Foundation
import Testing

/// Issue 14, point 1: the read-only commands leave every file of the vault as it was, byte for
/// byte, none added, none removed; in every situation an investigator meets.
@Suite("Forensics: read-only commands never write")
struct ForensicReadOnlyTests {
    /// Every read-only command, in each output form, with and without the custody record.
    static func readCommands(vault: String, key: String) -> [[String]] {
        let v = ["--vault", vault], k = ["--key-file", key]
        return [
            ["inspect"] + v,
            ["inspect"] + v + ["--json"],
            ["inspect"] + v + k,
            ["inspect"] + v + k + ["--json"],
            ["verify"] + v + k + ["--evidence"],
            ["verify"] + v + k + ["--json"],
            ["events"] + v + k,
            ["events"] + v + k + ["--json", "--evidence"],
            ["export-key"] + v + k,
            ["export-key"] + v + k + ["--json"],
            ["resume"] + v + k + ["--dry-run"],
            ["resume"] + v + k + ["--dry-run", "--json"],
            ["resume"] + v + k + ["--dry-run", "--evidence"],
        ]
    }

    /// Runs every read command against `vault` (files in `directory`) and checks the directory's
    /// digest after each. Returns the results by command line.
    @discardableResult
    static func runAll(vault: String, key: String, directory: String) async throws -> [String: CLIResult] {
        var results: [String: CLIResult] = [:]
        let before = DirectoryDigest(directory)
        for command in readCommands(vault: vault, key: key) {
            let result = try await CLI.run(command)
            // Named without its paths: `inspect --key-file --json`.
            let name = command.filter { !$0.contains("/") && $0 != "--vault" }.joined(separator: " ")
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(!result.crashed)
            let after = DirectoryDigest(directory)
            #expect(after == before, "\(name) changed the vault's directory: before \(before), after \(after)")
            results[name] = result
        }
        return results
    }

    @Test func aHotWriteAheadLogIsReadNeverCheckpointed() async throws {
        let vault = try await ForensicVault.hotWAL()
        let walSize = try #require(try FileManager.default.attributesOfItem(atPath: vault.path + "-wal")[.size] as? Int)
        #expect(walSize > 32, "the fixture must have a write-ahead log with frames")
        let results = try await Self.runAll(vault: vault.path, key: vault.keyPath, directory: vault.directory.path)

        // The log held the second write: the text says so, the JSON counts the pages.
        let text = try #require(results["inspect --key-file"])
        #expect(text.stdout.contains("not in the main file"))
        #expect(text.stdout.contains("applied to a private copy only"))
        let json = try #require(results["inspect --key-file --json"]?.json)
        let evidence = try #require(json["evidence"] as? [String: Any])
        let wal = try #require(evidence["wal"] as? [String: Any])
        #expect((wal["frames"] as? Int ?? 0) > 0)
        #expect((wal["pagesNotInMainFile"] as? Int ?? 0) > 0)
        #expect(evidence["originalsUnchanged"] as? Bool == true)
        // The second write, only in the log, is in the report.
        let events = try #require(json["events"] as? [[String: Any]])
        #expect(events.count >= 2)
        // Without the key the frames are counted from their headers alone.
        let keyless = try #require(results["inspect"])
        #expect(keyless.stdout.contains("UNAUTHENTICATED"))
        #expect(keyless.stdout.contains("not checked without the key"))
    }

    @Test func aReadOnlyMountIsEnough() async throws {
        let vault = try await CLIVault.signedIn()
        let mount = try await ReadOnlyMount.make(of: vault.directory.path)
        // Recorded in the test output: whether this run proved it on a real read-only mount.
        print("read-only view: \(mount.isMount ? "read-only bind mount" : "chmod 0555/0444 only (mount not permitted)")")
        if mount.isMount { #expect(mount.refusesWrites) }
        let results = try await Self.runAll(vault: mount.path + "/vault.db", key: mount.path + "/vault.key", directory: vault.directory.path)
        try await mount.remove()
        let verify = try #require(results["verify --key-file --json"]?.json)
        #expect(verify["intact"] as? Bool == true)
    }

    @Test func anOlderSchemaIsNotMigrated() async throws {
        let vault = try await ForensicVault.olderSchema()
        let results = try await Self.runAll(vault: vault.path, key: vault.keyPath, directory: vault.directory.path)
        // The original still lacks migrations 4 and 5: the stock shell sees schema version 3.
        let recipe = try #require(results["export-key --key-file"]?.stdout)
        let sqlcipher = try #require(CLI.tool("sqlcipher"))
        let shell = try await CLI.spawn(sqlcipher, [vault.path], stdin: Data((recipe + "SELECT max(version) FROM schema_migrations;\n").utf8))
        #expect(shell.stdout.hasSuffix("3\n"), "\(shell.stderr)")
    }
}
