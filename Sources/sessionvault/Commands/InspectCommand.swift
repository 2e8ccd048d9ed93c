import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault inspect`: everything about a vault a support engineer may see.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show engine versions, files, schema, sessions (with the path each would take), state, audit log, tombstone and a chain-of-custody record.",
        discussion: """
            Reads a private copy of the vault's files, so the originals never change (a write-ahead log is \
            applied to the copy only, and the record says when it held pages the main file lacks). \
            Without --key-file or --passphrase-stdin it shows what the header, the tombstone and the \
            files alone say, marked unauthenticated.

            With the key it shows the cipher and SQLite versions, page size and count, the \
            generation in the database and the header, each file's size, the schema version and \
            every applied migration with its checksum, every session with the path it would take \
            now, the state row, the latest audit events, the tombstone, and the chain-of-custody \
            record (SHA-256, size and modification time of each file as read, the write-ahead \
            log's frames, tool and engine versions, and whether the originals read the same \
            afterwards). Exit status 1 means damaged or absent: what could be read is still \
            printed. With --json: "vault", "inspectedAt", "authenticated", "cipher", \
            "sqliteVersion", "schemaVersion", "migrations", "sessions", "state", "header", \
            "files", "events", "tombstone" (or null) and "evidence".
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions
    @OptionGroup var clock: ClockOptions
    // Accepted so every read command takes the same flag; inspect adds the record either way.
    @OptionGroup var evidence: EvidenceOptions

    // --limit as in `events`; --events is the older name, kept so scripts keep working.
    @Option(
        name: [.customLong("limit"), .customLong("events")],
        help: ArgumentHelp("How many of the latest audit events to show (--events is an older name).", valueName: "n"))
    var eventLimit = 10

    func validate() throws {
        if eventLimit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let ranAt = Date()
            let now = clock.now
            let location = try options.location()
            if !location.databaseExists, let tombstone = location.tombstone {
                // A wiped vault: the tombstone is the whole report.
                printWiped(location, tombstone, console: console)
                return 0
            }
            try location.requireVault()
            return try await options.withEvidenceCopy { copy in
                guard options.hasKey else {
                    let record = CustodyRecord(command: "inspect", ranAt: ranAt, copy: copy, opened: false)
                    try printUnauthenticated(location, copy, record, console: console)
                    return 0
                }
                let keys = try options.keyProvider(keyStatus: CLIFailure.keyProblem)
                let inspection: VaultInspection
                do {
                    inspection = try await options.withOpenCopy(copy, keys: keys, now: now) { vault in
                        try await vault.inspect(now: now, eventLimit: eventLimit)
                    }
                } catch {
                    if case .corrupted(let reason)? = error as? VaultError, reason.kind != .wrongKey, reason.kind != .keyMissing {
                        let record = CustodyRecord(command: "inspect", ranAt: ranAt, copy: copy, opened: true)
                        let failure = CLIFailure(.corrupted(reason)).rewritten(copy.originalPaths)
                        printDamaged(location, reason, record, failure: failure, console: console)
                        // One JSON object on stdout: the report above already carries the error.
                        console.error(failure.message)
                        throw ExitCode(failure.status)
                    }
                    throw error
                }
                let record = CustodyRecord(command: "inspect", ranAt: ranAt, copy: copy, opened: true)
                if options.json {
                    guard case .object(var members) = inspection.json(vault: options.path) else { return 1 }
                    members["authenticated"] = .bool(true)
                    members["files"] = VaultInspection.FileSizes(files: location.files).json
                    members["evidence"] = record.json
                    console.line(JSONValue.object(members).rendered())
                } else {
                    inspection.printText(
                        vault: options.path, originals: VaultInspection.FileSizes(files: location.files), eventLimit: eventLimit, console: console)
                    console.line()
                    record.print(console)
                }
                return 0
            }
        }
    }

    /// Without a key: what the header, the tombstone and the files say. Nothing of it is
    /// authenticated (the header's checksums catch tearing, not forgery), and the output says so.
    private func printUnauthenticated(
        _ location: VaultLocation, _ copy: EvidenceCopy, _ record: CustodyRecord,
        console: Console
    ) throws {
        let header = try UnauthenticatedHeader.read(databasePath: copy.copy.database)
        let files = VaultInspection.FileSizes(files: location.files)
        let databaseSize = Int(files.database ?? 0)
        let pageSize = header?.cipherPageSize ?? 4096
        let warning = "UNAUTHENTICATED: no key given; read from the files alone, which prove nothing about who wrote them"
        if options.json {
            var headerValue = JSONValue.null
            if let header {
                headerValue = .object([
                    "formatVersion": .int(header.formatVersion),
                    "cipherPageSize": .int(header.cipherPageSize),
                    "kdfIterations": .int(header.kdfIterations),
                    "hmacAlgorithm": .string(header.hmacAlgorithm),
                    "kdfAlgorithm": .string(header.kdfAlgorithm),
                    "keyDerivation": .string(header.keyDerivation),
                    "generation": .int(Int64(clamping: header.generation)),
                    "rekeyPending": .bool(header.rekeyPending)
                ])
            }
            console.line(
                JSONValue.object([
                    "vault": .string(options.path),
                    "authenticated": .bool(false),
                    "warning": .string(warning),
                    "header": headerValue,
                    "pageCount": .int(databaseSize / pageSize),
                    "files": files.json,
                    "tombstone": location.tombstone?.json ?? .null,
                    "evidence": record.json
                ]).rendered())
            return
        }
        console.line("\(console.paint("Vault", .bold)) \(TerminalText.escaped(options.path))  \(console.paint(warning, .yellow))")
        console.line()
        console.line(console.paint("Header (unauthenticated)", .bold))
        var table = TextTable(indent: 2)
        if let header {
            table.add("format version", TextTable.Cell(String(header.formatVersion)))
            table.add(
                "cipher settings",
                TextTable.Cell(
                    "cipher_page_size \(header.cipherPageSize), kdf_iter \(header.kdfIterations), "
                        + "\(header.hmacAlgorithm), \(header.kdfAlgorithm) (pinned)"))
            table.add("root key", TextTable.Cell(header.keyDerivation == "argon2id" ? "derived from a passphrase (Argon2id)" : "stored (key file or keystore)"))
            table.add("generation", TextTable.Cell("\(header.generation)\(header.rekeyPending ? ", rekey pending" : "")"))
        } else {
            table.add("header", TextTable.Cell("none", .yellow))
        }
        var pages = "\(databaseSize / pageSize)"
        if databaseSize % pageSize != 0 { pages += " (and \(databaseSize % pageSize) bytes more: not a whole number of pages)" }
        table.add("pages", TextTable.Cell("\(pages) of \(pageSize) bytes in the main file"))
        table.print(console)
        console.line()
        console.line(console.paint("Files", .bold))
        files.table(vault: options.path, indent: 2).print(console)
        console.line()
        console.line(console.paint("Tombstone", .bold))
        console.line("  " + (location.tombstone.map { console.paint(TerminalText.escaped($0.summary), .yellow) } ?? "none"))
        console.line()
        record.print(console)
    }

    /// What can be said without opening: files and tombstone, with the damage found at open.
    private func printDamaged(
        _ location: VaultLocation, _ reason: CorruptionReason, _ record: CustodyRecord, failure: CLIFailure,
        console: Console
    ) {
        let files = VaultInspection.FileSizes(files: location.files)
        if options.json {
            console.line(
                JSONValue.object([
                    "vault": .string(options.path),
                    "files": files.json,
                    "tombstone": location.tombstone?.json ?? .null,
                    "corrupted": .object(["kind": .string(reason.kind.rawValue), "detail": .string(Console.oneLine(failure.message))]),
                    "error": .object(["message": .string(Console.oneLine(failure.message)), "status": .int(Int64(failure.status))]),
                    "sessions": .null,
                    "evidence": record.json
                ]).rendered())
        } else {
            console.line(
                "\(console.paint("Vault", .bold)) \(TerminalText.escaped(options.path))  \(console.paint("corrupted: \(reason.kind.rawValue)", .boldRed))")
            console.line()
            console.line(console.paint("Files", .bold))
            files.table(vault: options.path, indent: 2).print(console)
            console.line()
            record.print(console)
        }
    }

    private func printWiped(_ location: VaultLocation, _ tombstone: Tombstone, console: Console) {
        let files = VaultInspection.FileSizes(files: location.files)
        if options.json {
            console.line(
                JSONValue.object([
                    "vault": .string(options.path),
                    "files": files.json,
                    "tombstone": tombstone.json,
                    "sessions": .array([])
                ]).rendered())
        } else {
            console.line("\(console.paint("Vault", .bold)) \(TerminalText.escaped(options.path))  \(console.paint("wiped", .yellow))")
            console.line()
            console.line(console.paint("Files", .bold))
            files.table(vault: options.path, indent: 2).print(console)
            console.line()
            console.line(console.paint("Tombstone", .bold))
            console.line("  " + console.paint(TerminalText.escaped(tombstone.summary), .yellow))
        }
    }
}
