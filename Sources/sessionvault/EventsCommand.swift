import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault events`: the audit log (never a token; fingerprints only).
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the vault's audit log, oldest first: time, event, session, token fingerprint, reason.")

    @OptionGroup var options: VaultOptions

    @Option(name: .customLong("limit"), help: ArgumentHelp("Show at most this many of the latest events.", valueName: "n"))
    var limit = 50

    func validate() throws {
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console) {
            let events = try await options.withExistingVault(now: Date()) { vault in
                try await vault.auditEvents(limit: limit)
            }
            if options.json {
                console.line(JSONValue.object(["vault": .string(options.path), "events": .array(events.map(\.json))]).rendered())
            } else if events.isEmpty {
                console.line("no audit events in \(options.path)")
            } else {
                AuditEvent.table(events).print(console)
            }
            return 0
        }
    }
}
