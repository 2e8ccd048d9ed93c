import Foundation
import Testing

/// The read-only commands leave every file of the vault as it was, byte for byte, none added, none
/// removed; in every situation an investigator meets.
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
            ["inspect"] + v + k + ["--evidence"],
            ["verify"] + v + k,
            ["verify"] + v + k + ["--evidence"],
            ["verify"] + v + k + ["--json"],
            ["events"] + v + k,
            ["events"] + v + k + ["--evidence"],
            ["events"] + v + k + ["--json", "--evidence"],
            ["export-key"] + v + k,
            ["export-key"] + v + k + ["--evidence"],
            ["export-key"] + v + k + ["--json"],
            ["export-key"] + v + k + ["--json", "--evidence"],
            ["resume"] + v + k + ["--dry-run"],
            ["resume"] + v + k + ["--dry-run", "--json"],
            ["resume"] + v + k + ["--dry-run", "--evidence"]
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

    /// A hot log is read, never checkpointed; here it is made the way a device image gets one. A
    /// real writer process commits, says "ready" and is SIGKILLed, so its last commit exists only
    /// as frames of the write-ahead log; every read command then runs on that directory.
    @Test func aWriterKilledWithItsLogHotIsReadNeverCheckpointed() async throws {
        let (vault, rotated) = try await ForensicVault.killedWriter()
        let directory = vault.directory.path
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(names.isSuperset(of: ["vault.db", "vault.db-wal", "vault.db-shm", "vault.db-header", "vault.db-lock", "vault.key"]), "\(names)")
        // Whole frames (24-byte header and a 4096-byte page each) after the 32-byte log header.
        let walSize = try #require(try FileManager.default.attributesOfItem(atPath: vault.path + "-wal")[.size] as? Int)
        #expect(walSize >= 32 + 24 + 4096 && (walSize - 32) % (24 + 4096) == 0, "the log holds frames: \(walSize) bytes")

        // runAll hashes every file of the directory (lock files and the key too) around each command.
        let results = try await Self.runAll(vault: vault.path, key: vault.keyPath, directory: directory)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == names)

        // Every output that carries the custody record reports the log's frames; with the key,
        // that pages of it are not in the main file.
        for (name, result) in results where name.hasPrefix("inspect") || name.contains("--evidence") {
            let keyed = name.contains("--key-file")
            #expect(!result.leaksToken, "\(name)")
            if name.contains("--json") {
                let wal = try #require((result.json?["evidence"] as? [String: Any])?["wal"] as? [String: Any], "\(name)")
                #expect((wal["frames"] as? Int ?? 0) > 0 && (wal["committedFrames"] as? Int ?? 0) > 0, "\(name)")
                if keyed {
                    #expect((wal["pagesNotInMainFile"] as? Int ?? 0) > 0, "\(name)")
                } else {
                    #expect(wal["pagesNotInMainFile"] is NSNull, "\(name): not known without the key")
                }
            } else {
                #expect(result.stdout.contains("write-ahead log: "), "\(name)")
                #expect(result.stdout.contains(keyed ? "not in the main file (applied to a private copy only" : "not checked without the key"), "\(name)")
            }
        }

        // The session shown is the rotated one, which only the log holds.
        let sessions = try #require(results["inspect --key-file --json"]?.json?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 1)
        #expect(sessions.first?["refreshTokenFingerprint"] as? String == rotated)
        #expect(sessions.first?["tokenVersion"] as? Int == 2)
        let dryRun = try #require(results["resume --key-file --dry-run --json"]?.json)
        #expect((dryRun["session"] as? [String: Any])?["refreshTokenFingerprint"] as? String == rotated)
        let events = try #require(results["events --key-file --json --evidence"]?.json?["events"] as? [[String: Any]])
        #expect(events.map { $0["event"] as? String } == ["stored", "rotated"])
        #expect(events.last?["fingerprint"] as? String == rotated)

        // Read without its log, the same vault is behind its header: the frames really are
        // missing from the main file.
        let withoutLog = CLIVault()
        for suffix in ["", "-header"] { try FileManager.default.copyItem(atPath: vault.path + suffix, toPath: withoutLog.path + suffix) }
        try FileManager.default.copyItem(atPath: vault.keyPath, toPath: withoutLog.keyPath)
        let older = try await withoutLog.run(["inspect"], ["--json"])
        #expect(older.status == 1)
        #expect((older.json?["corrupted"] as? [String: Any])?["kind"] as? String == "rollback")
    }

    /// The same with a tombstone beside the vault: an app that recovered from damage, opened the
    /// new vault, changed a setting and was killed. The tombstone is read, never touched.
    @Test func aWriterKilledBesideATombstoneIsReadNeverCheckpointed() async throws {
        let vault = try await ForensicVault.killedWriterBesideTombstone()
        let directory = vault.directory.path
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
        #expect(
            names.isSuperset(of: ["vault.db", "vault.db-wal", "vault.db-shm", "vault.db-header", "vault.db-lock", "vault.db-tombstone", "vault.key"]),
            "\(names)")
        let results = try await Self.runAll(vault: vault.path, key: vault.keyPath, directory: directory)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == names)

        let json = try #require(results["inspect --key-file --json"]?.json)
        #expect((json["tombstone"] as? [String: Any])?["reason"] as? String == "notADatabase")
        // The preference change lives only in the log.
        #expect((json["state"] as? [String: Any])?["biometricPreference"] as? Bool == true)
        let evidence = try #require(json["evidence"] as? [String: Any])
        let roles = Set((evidence["files"] as? [[String: Any]] ?? []).compactMap { $0["role"] as? String })
        #expect(roles == ["database", "wal", "shm", "header", "tombstone"])
        #expect(((evidence["wal"] as? [String: Any])?["pagesNotInMainFile"] as? Int ?? 0) > 0)
        #expect(results["inspect"]?.stdout.contains("notADatabase at ") == true, "the keyless report shows the tombstone")
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
