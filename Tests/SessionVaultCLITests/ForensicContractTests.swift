import Foundation
import Testing
import SessionVaultTestSupport

/// What an investigator relies on: the custody record, inspect without the key, one contract, and
/// untrusted text shown rather than obeyed.
@Suite("Forensics: custody record, keyless inspect, one contract, untrusted text")
struct ForensicContractTests {
    /// A GoTrue response whose `user.id` carries a terminal escape (clear screen).
    static func hostileResponse() -> Data {
        Data(
            """
            {"access_token":"opaque-\(Fixtures.accessMarker)","token_type":"bearer","expires_in":3600,
             "refresh_token":"\(Fixtures.refreshMarker)-esc","user":{"id":"u\\u001b[2J","app_metadata":{"provider":"email"}}}
            """.utf8)
    }

    @Test func theCustodyRecordMatchesTheFilesAsRead() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await vault.run(["inspect"], ["--json"])
        #expect(result.status == 0)
        let evidence = try #require(result.json?["evidence"] as? [String: Any])
        let files = try #require(evidence["files"] as? [[String: Any]])
        let digest = DirectoryDigest(vault.directory.path)
        #expect(Set(files.compactMap { $0["role"] as? String }) == ["database", "header"])
        for file in files {
            let path = try #require(file["path"] as? String)
            #expect(file["sha256"] as? String == digest.files[(path as NSString).lastPathComponent])
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            #expect(file["size"] as? Int == size)
            #expect((file["modified"] as? String)?.hasSuffix("Z") == true)
        }
        #expect((evidence["engine"] as? [String: Any])?["sqlcipher"] as? String != "")
        #expect((evidence["tool"] as? String)?.hasPrefix("sessionvault ") == true)
        #expect(evidence["originalsUnchanged"] as? Bool == true)
        #expect(evidence["ranAt"] is String)

        let text = try await vault.run(["verify"], ["--evidence"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Evidence (chain of custody)"))
        #expect(text.stdout.contains(digest.files["vault.db"] ?? "?"))

        let dry = try await vault.run(["resume"], ["--dry-run", "--evidence", "--json"])
        #expect(dry.status == 0)
        #expect((dry.json?["evidence"] as? [String: Any])?["originalsUnchanged"] as? Bool == true)
        let notDry = try await vault.run(["resume"], ["--evidence"])
        #expect(notDry.status == 64, "a record is only given for a run that changes nothing")
    }

    /// The custody record on every read command: the same `--evidence` flag, the same record.
    @Test func everyReadCommandTakesEvidenceAndGivesTheSameRecord() async throws {
        let vault = try await CLIVault.signedIn()
        let digest = DirectoryDigest(vault.directory.path)
        var shapes: [String: [String]] = [:]
        for command in [["inspect"], ["verify"], ["events"], ["export-key"], ["resume", "--dry-run"]] {
            let name = command.joined(separator: " ")
            let json = try await vault.run(command, ["--evidence", "--json"])
            #expect(json.status == 0, "\(name): \(json.stderr)")
            let evidence = try #require(json.json?["evidence"] as? [String: Any], "\(name) --evidence --json")
            shapes[name] = evidence.keys.sorted()
            #expect(evidence["command"] as? String == name)
            #expect(evidence["originalsUnchanged"] as? Bool == true, "\(name)")
            let files = evidence["files"] as? [[String: Any]] ?? []
            #expect(Set(files.compactMap { $0["role"] as? String }) == ["database", "header"], "\(name)")
            for file in files {
                let fileName = ((file["path"] as? String ?? "") as NSString).lastPathComponent
                #expect(file["sha256"] as? String == digest.files[fileName], "\(name): \(fileName)")
            }
            let text = try await vault.run(command, ["--evidence"])
            #expect(text.status == 0, "\(name): \(text.stderr)")
            #expect(text.stdout.contains("Evidence (chain of custody)"), "\(name) --evidence")
            #expect(text.stdout.contains(digest.files["vault.db"] ?? "?"), "\(name) --evidence names the database's digest")
        }
        let reference = try #require(shapes["inspect"])
        for (name, shape) in shapes { #expect(shape == reference, "\(name): the same record shape as inspect's") }

        // export-key's record is SQL comments after the statements: the output still pastes as is.
        let exported = try await vault.run(["export-key"], ["--evidence"])
        let lines = exported.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.prefix(5).allSatisfy { $0.hasPrefix("PRAGMA ") })
        #expect(lines.count > 10 && lines.dropFirst(5).allSatisfy { $0.hasPrefix("--") })
        let query = "SELECT subject FROM sessions;\n"
        var shells = [try #require(CLI.tool("sqlcipher"))]
        if let four = ExportKeyCommandTests.sqlcipher4 { shells.append(four) }
        for shell in shells {
            let pasted = try await CLI.spawn(shell, [vault.path], stdin: Data((exported.stdout + query).utf8))
            #expect(pasted.status == 0, "\(shell): \(pasted.stderr)")
            #expect(pasted.stdout.hasSuffix("user-123\n"), "\(shell)")
        }
    }

    @Test func inspectWithoutTheKeyIsMarkedUnauthenticated() async throws {
        let vault = try await CLIVault.signedIn()
        let result = try await CLI.run(["inspect", "--vault", vault.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["authenticated"] as? Bool == false)
        #expect((json["warning"] as? String)?.contains("UNAUTHENTICATED") == true)
        let header = try #require(json["header"] as? [String: Any])
        #expect(header["formatVersion"] as? Int == 1)
        #expect(header["cipherPageSize"] as? Int == 4096)
        #expect(header["kdfIterations"] as? Int == 64000)
        #expect(header["hmacAlgorithm"] as? String == "HMAC_SHA1")
        #expect(header["keyDerivation"] as? String == "stored")
        #expect((header["generation"] as? Int ?? 0) >= 1)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: vault.path)[.size] as? Int)
        #expect(json["pageCount"] as? Int == size / 4096)
        #expect(json["sessions"] == nil, "nothing that needs the key is shown")
        let text = try await CLI.run(["inspect", "--vault", vault.path])
        #expect(text.stdout.contains("Header (unauthenticated)"))
        #expect(text.stdout.contains("cipher_page_size 4096, kdf_iter 64000, HMAC_SHA1, PBKDF2_HMAC_SHA1"))
    }

    @Test func everyHelpShowsTheExitTableAndJSONErrorsAreObjects() async throws {
        for command in ["keygen", "import", "resume", "inspect", "verify", "events", "logout", "biometric", "rekey", "wipe", "export-key", "demo"] {
            let help = try await CLI.run([command, "--help"])
            #expect(help.stdout.contains("3 refused to act"), "\(command) --help has the exit table")
        }
        let vault = try await CLIVault.signedIn()
        let otherKey = vault.directory.file("other.key")
        #expect(try await CLI.run(["keygen", "--key-file", otherKey]).status == 0)
        // A wrong key is 2 for every command that reads the vault, and with --json an object.
        for command in [["inspect"], ["verify"], ["events"], ["logout"], ["biometric", "enable"], ["export-key"]] {
            let result = try await CLI.run(command + ["--vault", vault.path, "--key-file", otherKey, "--json"])
            #expect(result.status == 2, "\(command)")
            let error = result.json?["error"] as? [String: Any]
            #expect(error?["status"] as? Int == 2, "\(command): stdout is one JSON error object")
        }
        // A mistyped key file reads the same in every command: a hint, not "corrupted".
        for command in [["inspect"], ["verify"], ["events"], ["export-key"]] {
            let result = try await CLI.run(command + ["--vault", vault.path, "--key-file", vault.directory.file("typo.key")])
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr.contains("a mistyped --key-file?"), "\(command): \(result.stderr)")
        }
        // A damaged vault with --json: one object on stdout, holding the report and the error.
        try await vault.damageDatabase(at: 5000)
        let damaged = try await vault.run(["inspect"], ["--json"])
        #expect(damaged.status == 1)
        #expect(damaged.json?["error"] is [String: Any])
        #expect(damaged.json?["evidence"] is [String: Any])
    }

    /// Drift found while finishing the forensic contract: usage errors and keygen's errors had no
    /// JSON object, import, logout and biometric named no vault, biometric's "session" was an id
    /// where every other command's is the session object, rekey said "createdKeyFile" for import's
    /// "keyCreated".
    @Test func everyCommandKeepsOneJSONShape() async throws {
        let vault = try await CLIVault.signedIn()
        // Usage errors (64) under --json: the same error object on stdout.
        for arguments in [
            ["events", "--vault", vault.path, "--key-file", vault.keyPath, "--limit", "0", "--json"],
            ["verify", "--vault", vault.path, "--json"], ["inspect", "--vault", vault.path, "--no-such-flag", "--json"],
            ["demo", "--dir", "", "--json"]
        ] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            let error = result.json?["error"] as? [String: Any]
            #expect(error?["status"] as? Int == 64, "\(arguments[0]): \(result.stdout)")
            #expect((error?["message"] as? String)?.isEmpty == false)
        }
        let plain = try await CLI.run(["events", "--vault", vault.path, "--key-file", vault.keyPath, "--limit", "0"])
        #expect(plain.status == 64 && plain.stdout.isEmpty, "without --json stdout stays empty")
        let keygen = try await CLI.run(["keygen", "--key-file", vault.keyPath, "--json"])
        #expect(keygen.status == 1)
        #expect((keygen.json?["error"] as? [String: Any])?["status"] as? Int == 1)

        let newKey = vault.directory.file("new.key")
        var outputs: [String: [String: Any]] = [:]
        outputs["import"] = try await vault.run(["import"], ["--json"], stdin: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2")).json
        outputs["biometric"] = try await vault.run(["biometric", "enable"], ["--json"]).json
        outputs["resume"] = try await vault.run(["resume"], ["--json"]).json
        outputs["inspect"] = try await vault.run(["inspect"], ["--json"]).json
        outputs["verify"] = try await vault.run(["verify"], ["--json"]).json
        outputs["events"] = try await vault.run(["events"], ["--json"]).json
        outputs["export-key"] = try await vault.run(["export-key"], ["--json"]).json
        outputs["logout"] = try await vault.run(["logout"], ["--json"]).json
        outputs["rekey"] = try await vault.run(["rekey"], ["--new-key-file", newKey, "--json"]).json
        outputs["wipe"] = try await CLI.run(["wipe", "--vault", vault.path, "--key-file", newKey, "--yes", "--json"]).json
        for (name, json) in outputs {
            #expect(json["vault"] as? String == vault.path, "\(name) names the vault")
            if let session = json["session"] { #expect(session is [String: Any] || session is NSNull, "\(name): session is an object") }
        }
        #expect((outputs["biometric"]?["session"] as? [String: Any])?["biometricEnabled"] as? Bool == true)
        #expect(outputs["rekey"]?["keyCreated"] as? Bool == true)
        #expect(outputs["import"]?["keyCreated"] as? Bool == false)
    }

    @Test func importSaysWhenItCreatedAKeyAndWhenNothingChanged() async throws {
        let vault = CLIVault()
        let first = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON())
        #expect(first.status == 0)
        #expect(first.stdout.contains("created key file"))
        let again = try await vault.run(["import"], ["--now", Fixtures.signIn, "--json"], stdin: Fixtures.goTrueJSON())
        #expect(again.status == 0)
        #expect(again.json?["changed"] as? Bool == false)
        #expect(again.json?["keyCreated"] as? Bool == false)
        let text = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON())
        #expect(text.stdout.contains("nothing changed"))
        #expect(!text.stdout.contains("created key file"))
    }

    @Test func controlCharactersFromOutsideAreShownNotObeyed() async throws {
        // A directory whose name holds a newline and an escape sequence, and a subject with ESC.
        let base = TemporaryDirectory()
        let directory = base.file("evil\n\u{1B}[31mdir")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let path = directory + "/vault.db", key = directory + "/vault.key"
        let arguments = ["--vault", path, "--key-file", key]
        let imported = try await CLI.run(["import"] + arguments + ["--now", Fixtures.signIn], stdin: Self.hostileResponse())
        #expect(imported.status == 0, "\(imported.stderr)")
        var outputs = [imported]
        for command in [
            ["inspect"], ["inspect", "--limit", "5"], ["resume", "--now", Fixtures.signIn], ["resume", "--dry-run"],
            ["verify"], ["events"]
        ] {
            outputs.append(try await CLI.run(command + arguments))
        }
        outputs.append(try await CLI.run(["inspect", "--vault", path]))
        for output in outputs {
            let raw = output.stdout.utf8.contains(0x1B) || output.stderr.utf8.contains(0x1B)
            #expect(!raw, "no raw ESC byte reaches the terminal")
            #expect(!output.stdout.contains("evil\n"), "a newline in the path does not break a line")
        }
        #expect(imported.stdout.contains("u\\e[2J"), "the subject is shown with its escape made visible")
        #expect(outputs[1].stdout.contains("evil\\n\\e[31mdir"))
        // JSON keeps the exact value.
        let json = try await CLI.run(["inspect"] + arguments + ["--json"])
        let sessions = json.json?["sessions"] as? [[String: Any]] ?? []
        let subjects = sessions.compactMap { $0["subject"] as? String }
        #expect(subjects.contains("u\u{1B}[2J"))
        #expect(json.json?["vault"] as? String == path)
        let logout = try await CLI.run(["logout"] + arguments)
        #expect(logout.status == 0)
        #expect(!logout.stdout.utf8.contains(0x1B))
        #expect(logout.stdout.contains("u\\e[2J"))
    }
}
