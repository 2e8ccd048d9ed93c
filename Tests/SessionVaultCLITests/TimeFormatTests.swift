import Foundation
import Testing
import SessionVaultTestSupport

/// One time format: every time the CLI prints, in text and JSON, is ISO 8601 UTC with exactly three
/// fractional digits, whatever clock or `--now` it came from.
@Suite("One time format in every command")
struct TimeFormatTests {
    /// The one form: `2027-01-15T08:00:00.000Z`.
    static func hasOneForm(_ text: String) -> Bool {
        text.wholeMatch(of: #/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/#) != nil
    }

    /// Anything that starts like a date, to be held to the one form.
    static func isDateLike(_ text: String) -> Bool { text.prefixMatch(of: #/[+-]?[0-9]{4,}-[0-9]{2}-/#) != nil }
    /// Keys whose values are times, to catch a time printed in another form altogether.
    static func isTimeKey(_ key: String) -> Bool {
        key.hasSuffix("At") || ["at", "since", "until", "modified", "absoluteDeadline", "lastWallClock", "refreshPendingSince"].contains(key)
    }

    /// Every string in a JSON document that is a time (by its key or by its look), with its path.
    static func times(in value: Any, path: String = "") -> [(path: String, text: String)] {
        switch value {
        case let object as [String: Any]:
            return object.flatMap { key, member -> [(path: String, text: String)] in
                if let text = member as? String, isTimeKey(key) || isDateLike(text) { return [("\(path).\(key)", text)] }
                return times(in: member, path: "\(path).\(key)")
            }
        case let array as [Any]:
            return array.enumerated().flatMap { times(in: $1, path: "\(path)[\($0)]") }
        default:
            return []
        }
    }

    /// The first column of a table's rows (after its header row): the times.
    static func firstColumn(after header: String, in text: String) -> [String] {
        let lines = text.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(header) }) else { return [] }
        return lines[(start + 1)...].prefix { $0.trimmingCharacters(in: .whitespaces).first?.isNumber == true }
            .map { String($0.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }) }
    }

    @Test func aTimelineOfMixedClocksHasOneWidthAndSortsAsText() async throws {
        let vault = try await CLIVault.signedIn()
        // A whole second, a fraction, Unix seconds with a fraction, and the system clock.
        await #expect(try vault.run(["biometric", "enable"], ["--now", "2027-01-15T08:00:00.5Z"]).status == 0)
        await #expect(try vault.run(["biometric", "disable"], ["--now", "1800000030.25"]).status == 0)
        await #expect(try vault.run(["biometric", "enable"]).status == 0)
        await #expect(try vault.run(["logout"], ["--now", "2027-01-15T08:01:00Z"]).status == 0)
        let text = try await vault.run(["events"])
        #expect(text.status == 0)
        let times = Self.firstColumn(after: "TIME", in: text.stdout)
        #expect(times.count == 5)
        #expect(times.allSatisfy { Self.hasOneForm($0) }, "\(times)")
        #expect(Set(times.map(\.count)).count == 1, "one width: \(times)")
        #expect(times == times.sorted(), "the column sorts as text in time order")
        // The --now times in order (the system clock's event sorts wherever today falls).
        #expect(
            times.filter { $0.hasPrefix("2027-") } == [
                "2027-01-15T08:00:00.000Z", "2027-01-15T08:00:00.500Z",
                "2027-01-15T08:00:30.250Z", "2027-01-15T08:01:00.000Z"
            ])

        // The same in inspect: its audit log and the APPLIED column of the schema table.
        let inspect = try await vault.run(["inspect"], ["--now", "2027-01-15T09:00:00Z"])
        #expect(inspect.stdout.contains("(inspected at 2027-01-15T09:00:00.000Z,"))
        let applied = inspect.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && $0.contains("create_") }
            .compactMap { $0.split(separator: " ").dropFirst(2).first.map(String.init) }
        #expect(applied.count == 5 && applied.allSatisfy { Self.hasOneForm($0) }, "\(applied)")
        // And in the MODIFIED column of the custody record's file list.
        let lines = inspect.stdout.split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.contains("FILE") && $0.contains("MODIFIED") })
        let modified = lines[(header + 1)...].map { $0.split(separator: " ") }.filter { $0.count == 4 }.map { String($0[2]) }
        #expect(modified.count == 2 && modified.allSatisfy { Self.hasOneForm($0) }, "\(modified)")
    }

    @Test func aWholeSecondNowStillPrintsMilliseconds() async throws {
        let vault = try await CLIVault.signedIn()
        let verify = try await vault.run(["verify"], ["--now", "2027-01-15T08:00:00Z"])
        #expect(verify.stdout.contains("checked at     2027-01-15T08:00:00.000Z\n"))
        let unix = try await vault.run(["verify"], ["--now", "1800000000"])
        #expect(unix.stdout.contains("checked at     2027-01-15T08:00:00.000Z\n"))
        let resume = try await vault.run(["resume"], ["--now", "2027-01-15T08:00:00Z"])
        #expect(resume.stdout.contains("signed in      2027-01-15T08:00:00.000Z (now)"))
        #expect(resume.stdout.contains("expires 2027-01-15T09:00:00.000Z (in 1h)"))
        let json = try await vault.run(["inspect"], ["--now", "2027-01-15T08:00:00Z", "--json"])
        #expect(json.json?["inspectedAt"] as? String == "2027-01-15T08:00:00.000Z")
    }

    @Test func everyJSONTimeOfEveryCommandHasTheOneForm() async throws {
        let vault = try await CLIVault.signedIn()
        let newKey = vault.directory.file("new.key")
        let demo = TemporaryDirectory()
        var runs: [(String, CLIResult)] = []
        func run(_ name: String, _ result: CLIResult) { runs.append((name, result)) }
        run("keygen", try await CLI.run(["keygen", "--key-file", vault.directory.file("spare.key"), "--json"]))
        run(
            "import",
            try await vault.run(["import"], ["--now", "2027-01-15T08:00:30Z", "--json"], stdin: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2")))
        run("biometric", try await vault.run(["biometric", "enable"], ["--json"]))
        run("resume", try await vault.run(["resume"], ["--now", "1800000060.5", "--json"]))
        run("resume --dry-run", try await vault.run(["resume"], ["--dry-run", "--evidence", "--json"]))
        run("inspect", try await vault.run(["inspect"], ["--json"]))
        run("inspect without key", try await CLI.run(["inspect", "--vault", vault.path, "--json"]))
        run("verify", try await vault.run(["verify"], ["--evidence", "--json"]))
        run("events", try await vault.run(["events"], ["--since", "1800000000", "--until", "2030-01-01T00:00:00Z", "--evidence", "--json"]))
        run("export-key", try await vault.run(["export-key"], ["--evidence", "--json"]))
        run("logout", try await vault.run(["logout"], ["--json"]))
        run("rekey", try await vault.run(["rekey"], ["--new-key-file", newKey, "--json"]))
        let rekeyed = ["--vault", vault.path, "--key-file", newKey]
        try await vault.damageDatabase()
        run("wipe", try await CLI.run(["wipe"] + rekeyed + ["--yes", "--json"]))
        run("inspect of a wiped vault", try await CLI.run(["inspect"] + rekeyed + ["--json"]))
        run("demo", try await CLI.run(["demo", "--dir", demo.path, "--json"]))

        var found: [String: Int] = [:]
        for (name, result) in runs {
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let json = try #require(result.json, "\(name) prints one JSON object")
            for (path, text) in Self.times(in: json) {
                #expect(Self.hasOneForm(text), "\(name) \(path): \(text)")
                found[name, default: 0] += 1
            }
        }
        // Not vacuous: the times each command is known to print were seen.
        for name in [
            "import", "resume", "resume --dry-run", "inspect", "inspect without key", "verify", "events", "export-key",
            "wipe", "inspect of a wiped vault", "demo"
        ] {
            #expect(found[name, default: 0] > 0, "\(name) printed no time")
        }
        #expect(found["inspect", default: 0] >= 15)
        #expect(found["demo", default: 0] >= 10)
    }
}
