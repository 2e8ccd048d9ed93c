import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault inspect`: everything about a vault a support engineer may see.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show engine versions, files, schema, sessions (with the path each would take), state, audit log and tombstone.",
        discussion: "Exit status: 0 reported, 1 the vault cannot be read (damaged, absent), 2 key missing or wrong.")

    @OptionGroup var options: VaultOptions
    @OptionGroup var clock: ClockOptions

    @Option(name: .customLong("events"), help: ArgumentHelp("How many of the latest audit events to show.", valueName: "n"))
    var eventLimit = 10

    func validate() throws {
        if eventLimit < 0 { throw ValidationError("--events must be 0 or more") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, keyStatus: CLIFailure.keyProblem) {
            let now = clock.now
            let location = try options.location()
            if !location.databaseExists, let tombstone = location.tombstone {
                // A wiped vault: the tombstone is the whole report.
                printWiped(location, tombstone, console: console)
                return 0
            }
            try location.requireVault()
            let keys = try options.keyProvider(keyStatus: CLIFailure.keyProblem)
            let vault: Vault
            do {
                vault = try options.open(keys, now: now)
            } catch {
                if case .corrupted(let reason)? = error as? VaultError, reason.kind != .wrongKey, reason.kind != .keyMissing {
                    printDamaged(location, reason, console: console)
                }
                throw error
            }
            let inspection: VaultInspection
            do {
                inspection = try await vault.inspect(now: now, eventLimit: eventLimit)
            } catch {
                await vault.close()
                throw error
            }
            await vault.close()
            if options.json {
                console.line(inspection.json(vault: options.path).rendered())
            } else {
                inspection.printText(vault: options.path, eventLimit: eventLimit, console: console)
            }
            return 0
        }
    }

    /// What can be said without opening: files and tombstone, with the damage found at open.
    private func printDamaged(_ location: VaultLocation, _ reason: CorruptionReason, console: Console) {
        let files = VaultInspection.FileSizes(files: location.files)
        if options.json {
            console.line(JSONValue.object([
                "vault": .string(options.path),
                "files": files.json,
                "tombstone": location.tombstone?.json ?? .null,
                "corrupted": .object(["kind": .string(reason.kind.rawValue), "detail": .string(reason.detail)]),
                "sessions": .null,
            ]).rendered())
        } else {
            console.line("\(console.paint("Vault", .bold)) \(options.path)  \(console.paint("corrupted: \(reason.kind.rawValue)", .boldRed))")
            console.line()
            console.line(console.paint("Files", .bold))
            files.table(vault: options.path, indent: 2).print(console)
        }
    }

    private func printWiped(_ location: VaultLocation, _ tombstone: Tombstone, console: Console) {
        let files = VaultInspection.FileSizes(files: location.files)
        if options.json {
            console.line(JSONValue.object([
                "vault": .string(options.path),
                "files": files.json,
                "tombstone": tombstone.json,
                "sessions": .array([]),
            ]).rendered())
        } else {
            console.line("\(console.paint("Vault", .bold)) \(options.path)  \(console.paint("wiped", .yellow))")
            console.line()
            console.line(console.paint("Files", .bold))
            files.table(vault: options.path, indent: 2).print(console)
            console.line()
            console.line(console.paint("Tombstone", .bold))
            console.line("  " + console.paint(tombstone.summary, .yellow))
        }
    }
}
