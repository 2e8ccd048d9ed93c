import Foundation
import SessionVault

extension VaultInspection {
    /// The `inspect --json` document: `cipher`, `sqliteVersion`, `schemaVersion`, `migrations`,
    /// `sessions` (each with its `path`), `tombstone`, plus `files`, `header`, `state`, `events`.
    func json(vault path: String) -> JSONValue {
        .object([
            "vault": .string(path),
            "inspectedAt": .time(inspectedAt),
            "libraryVersion": .string(libraryVersion),
            "cipher": .object([
                "version": .string(cipherVersion),
                "pageSize": .int(pageSize),
                "pageCount": .int(pageCount),
                "journalMode": .string(journalMode)
            ]),
            "sqliteVersion": .string(sqliteVersion),
            "schemaVersion": .int(schemaVersion),
            "migrations": .array(
                migrations.map { migration in
                    .object([
                        "version": .int(migration.version),
                        "name": .string(migration.name),
                        "checksum": .string(migration.checksum),
                        "appliedAt": .time(migration.appliedAt)
                    ])
                }),
            "sessions": .array(
                sessions.map { entry in
                    guard case .object(var members) = entry.session.json else { return .null }
                    members["current"] = .bool(entry.isCurrent)
                    members["path"] = .string(entry.path.name)
                    members["reason"] = .string(entry.path.reasonText)
                    return .object(members)
                }),
            "state": .object([
                "currentSessionID": .string(state.currentSessionID),
                "generation": .int(Int64(clamping: state.generation)),
                "lastWallClock": .time(state.lastWallClock),
                "emptyReason": .string(state.emptyReason?.code),
                "serverClockOffsetSeconds": .double(state.serverClockOffset),
                "biometricPreference": .bool(state.biometricPreference)
            ]),
            "header": .object([
                "generation": .int(Int64(clamping: header.generation)),
                "keyDerivation": .string(header.keyDerivation.name),
                // The key the vault names (never a secret, never a path); null when none recorded.
                "keyIdentity": .string(header.keyIdentity),
                "rekeyPending": .bool(header.rekeyPending)
            ]),
            "files": files.json,
            "events": .array(recentEvents.map(\.json)),
            "tombstone": tombstone?.json ?? .null
        ])
    }

    /// The aligned, sectioned report for people.
    /// `originals`: the sizes of the files as given (the report is read from a private copy).
    func printText(vault path: String, originals: FileSizes? = nil, eventLimit: Int, console: Console) {
        let now = inspectedAt
        func heading(_ text: String) {
            console.line()
            console.line(console.paint(text, .bold))
        }
        console.line("\(console.paint("Vault", .bold)) \(TerminalText.escaped(path))  (inspected at \(TimeFormat.iso(now)), SessionVault \(libraryVersion))")

        heading("Engine")
        var engine = TextTable(indent: 2)
        engine.add("cipher", TextTable.Cell("SQLCipher \(cipherVersion), page size \(pageSize), \(pageCount) pages, journal \(journalMode)"))
        engine.add("sqlite", TextTable.Cell(sqliteVersion))
        engine.add(
            "root key",
            TextTable.Cell(
                header.keyDerivation.name == "argon2id"
                    ? "derived from a passphrase (Argon2id)"
                    : "stored (key file or keystore)\(header.keyIdentity.map { ", named \($0)" } ?? ", not named")"))
        engine.add("generation", TextTable.Cell("database \(state.generation), header \(header.generation)\(header.rekeyPending ? ", rekey pending" : "")"))
        engine.print(console)

        heading("Files")
        (originals ?? files).table(vault: path, indent: 2).print(console)

        heading("Schema version \(schemaVersion)")
        var schema = TextTable(indent: 2)
        schema.add(
            TextTable.Cell("VERSION", .bold), TextTable.Cell("NAME", .bold), TextTable.Cell("APPLIED", .bold),
            TextTable.Cell("CHECKSUM (BLAKE2b-256)", .bold))
        for migration in migrations {
            schema.add(
                TextTable.Cell(String(migration.version)), TextTable.Cell(migration.name),
                TextTable.Cell(TimeFormat.iso(migration.appliedAt)),
                TextTable.Cell(migration.checksum, .dim))
        }
        schema.print(console)

        heading("Sessions (\(sessions.count))")
        if sessions.isEmpty { console.line("  none") }
        for entry in sessions {
            var table = TextTable(indent: 2)
            table.add("path", TextTable.Cell(entry.path.summary, entry.path.style))
            for row in entry.session.rows(now: now) { table.add(row) }
            table.add("current", TextTable.Cell(entry.isCurrent ? "yes" : "no"))
            table.print(console)
        }

        heading("State")
        var stateTable = TextTable(indent: 2)
        stateTable.add("current session", TextTable.Cell(state.currentSessionID ?? "none"))
        stateTable.add("empty reason", TextTable.Cell(state.emptyReason?.code ?? "-"))
        stateTable.add(
            "last wall clock",
            TextTable.Cell(
                state.lastWallClock.timeIntervalSince1970 == 0
                    ? "none yet" : TimeFormat.describe(state.lastWallClock, now: now)))
        stateTable.add("server clock offset", TextTable.Cell(String(format: "%+.3f s", state.serverClockOffset)))
        stateTable.add("biometric preference", TextTable.Cell(state.biometricPreference ? "enabled" : "disabled"))
        stateTable.print(console)

        heading("Audit log (latest \(recentEvents.count), up to \(eventLimit))")
        if recentEvents.isEmpty {
            console.line("  none")
        } else {
            AuditEvent.table(recentEvents, indent: 2).print(console)
        }

        heading("Tombstone")
        console.line("  " + (tombstone.map { console.paint(TerminalText.escaped($0.summary), .yellow) } ?? "none"))
    }
}
