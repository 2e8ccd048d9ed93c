import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault events`: the audit log as a timeline (never a token; fingerprints only).
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print the vault's audit log as a timeline, oldest first: time, event, session, token fingerprint, reason.",
        discussion: """
            Reads a private copy of the vault's files, so the originals never change. Times are in the \
            one form every command prints (2026-01-01T09:00:00.000Z); --since and --until take ISO 8601 \
            or Unix seconds and keep the events at or after, at or before them. The session id is \
            shown whole, to match server logs (GoTrue's session_id) and your API's logs. A token \
            appears as its fingerprint, a keyed hash only this vault's key can compute: it matches \
            the same vault's audit log and your app's logs, never a server's. --evidence adds the \
            chain-of-custody record.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    @Option(name: .customLong("limit"), help: ArgumentHelp("Show at most this many of the latest events (after --since/--until).", valueName: "n"))
    var limit = 50

    @Option(name: .customLong("since"), help: ArgumentHelp("Only events at or after this time (ISO 8601 or Unix seconds).", valueName: "time"))
    var since: Timestamp?

    @Option(name: .customLong("until"), help: ArgumentHelp("Only events at or before this time (ISO 8601 or Unix seconds).", valueName: "time"))
    var until: Timestamp?

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws {
        try options.requireKey()
        if limit < 1 { throw ValidationError("--limit must be at least 1") }
        if let since, let until, since.date > until.date { throw ValidationError("--since is after --until") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let ranAt = Date()
            try options.location().requireVault()
            let keys = try options.keyProvider()
            return try await options.withEvidenceCopy { copy in
                // The whole log, then the window: the log is small (one row per write), and the
                // window must not depend on how many events fall outside it.
                let all = try await options.withOpenCopy(copy, keys: keys, now: ranAt) { vault in
                    try await vault.auditEvents(limit: Int(Int32.max))
                }
                let events = Array(Self.timeline(all, since: since?.date, until: until?.date).suffix(limit))
                let record = evidence.requested ? CustodyRecord(command: "events", ranAt: ranAt, copy: copy, opened: true) : nil
                if options.json {
                    var members: [String: JSONValue] = ["vault": .string(options.path), "events": .array(events.map(\.json))]
                    members["since"] = since.map { .string(TimeFormat.iso($0.date)) } ?? .null
                    members["until"] = until.map { .string(TimeFormat.iso($0.date)) } ?? .null
                    if let record { members["evidence"] = record.json }
                    console.line(JSONValue.object(members).rendered())
                } else {
                    if events.isEmpty {
                        console.line("no audit events in \(TerminalText.escaped(options.path))\(since != nil || until != nil ? " in that window" : "")")
                    } else {
                        AuditEvent.table(events).print(console)
                    }
                    if let record {
                        console.line()
                        record.print(console)
                    }
                }
                return 0
            }
        }
    }

    /// Events in the window, in time order; the log's own order breaks ties (and orders events
    /// written under a clock that went back the way they happened).
    static func timeline(_ events: [AuditEvent], since: Date?, until: Date?) -> [AuditEvent] {
        events.filter { event in
            (since.map { event.at >= $0 } ?? true) && (until.map { event.at <= $0 } ?? true)
        }.sorted { ($0.at, $0.id) < ($1.at, $1.id) }
    }
}
