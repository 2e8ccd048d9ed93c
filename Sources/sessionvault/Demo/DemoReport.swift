import Foundation
import SessionVault

/// What `sessionvault demo` shows: printed step by step as the tour goes (text), or collected
/// into one JSON document printed at the end (`--json`), so a script reads one object, the same
/// shape every run: `{"tour", "directory", "keyFile", "vault", "startedAt", "steps": [...],
/// "tryIt"}`, each step `{"step", "title", "at", "facts", "notes"}` plus `"path"` (the resume
/// path, as `resume --json` gives it, and `"app"`) where a launch was shown, and `"inspection"`
/// (as `inspect --json`) in the last step. Nothing is printed to stdout in JSON form before the
/// tour ends, so a failure leaves only the error object there.
final class DemoReport {
    let console: Console
    let json: Bool
    private var document: [String: JSONValue] = [:]
    private var steps: [JSONValue] = []
    private var current: [String: JSONValue]?
    private var facts: [String: JSONValue] = [:]
    private var notes: [JSONValue] = []

    init(console: Console, json: Bool) {
        self.console = console
        self.json = json
    }

    /// The tour's title and where it keeps its files.
    func begin(directory: String, keyFile: String, vault: String, start: Date) {
        if json {
            document = [
                "tour": .string(Self.title), "directory": .string(directory), "keyFile": .string(keyFile),
                "vault": .string(vault), "startedAt": .time(start)
            ]
            return
        }
        console.line(console.paint(Self.title, .bold))
        console.say("Files in \(directory) (cleaned first). The tour's clock starts now, \(TimeFormat.iso(start)), and moves by hand.")
    }

    /// A new step, at `at` on the tour's clock.
    func step(_ number: Int, _ title: String, at: Date) {
        closeStep()
        if json {
            current = ["step": .int(number), "title": .string(title), "at": .time(at)]
            return
        }
        console.line()
        console.line(console.paint("\(number). \(title)", .bold))
    }

    /// One fact of the step: `label  text` for people, `key: value` in the JSON.
    func fact(_ label: String, _ text: String, key: String, _ value: JSONValue) {
        if json {
            facts[key] = value
            return
        }
        console.line("   " + console.paint(label.padding(toLength: 15, withPad: " ", startingAt: 0), .dim) + TerminalText.escaped(text))
    }

    /// A remark on the step.
    func note(_ text: String) {
        if json {
            notes.append(.string(text))
            return
        }
        console.line("   " + console.paint(TerminalText.escaped(text), .dim))
    }

    /// What a launch decided: `→ expired    accessTokenExpired` and what the app does.
    func launch(_ path: ResumePath) {
        if json {
            guard case .object(var members) = path.json else { return }
            members["app"] = .string(path.advice)
            current?["path"] = .object(members)
            return
        }
        if let reason = path.reasonText {
            console.line(
                "   → " + console.paint(path.name.padding(toLength: 11, withPad: " ", startingAt: 0), path.style)
                    + TerminalText.escaped(reason))
        } else {
            console.line("   → " + console.paint(path.name, path.style))
        }
        note("the app: \(path.advice)")
    }

    /// What `sessionvault inspect` shows of the vault.
    func inspection(_ inspection: VaultInspection, vault: String, eventLimit: Int) {
        if json {
            current?["inspection"] = inspection.json(vault: vault)
            return
        }
        console.line()
        inspection.printText(vault: vault, eventLimit: eventLimit, console: console)
    }

    /// The command to run next; in JSON form, the end of the document, printed now.
    func finish(tryIt command: String) {
        closeStep()
        if json {
            document["steps"] = .array(steps)
            document["tryIt"] = .string(command)
            console.line(JSONValue.object(document).rendered())
            return
        }
        console.line()
        console.line(console.paint("Try it yourself:", .bold) + " " + TerminalText.escaped(command))
    }

    private func closeStep() {
        guard json, var step = current else { return }
        step["facts"] = .object(facts)
        step["notes"] = .array(notes)
        steps.append(.object(step))
        current = nil
        facts = [:]
        notes = []
    }

    private static let title = "SessionVault demo: one vault through every resume path"
}
