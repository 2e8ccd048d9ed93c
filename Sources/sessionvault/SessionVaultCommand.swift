import ArgumentParser
import CProcessGuard
import SessionVault

/// `sessionvault`: looks inside a SessionVault vault without ever showing a token.
@main
struct SessionVaultCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessionvault",
        abstract: "Inspect, verify and recover SessionVault vaults; tokens only ever appear as fingerprints.",
        discussion: """
            Every command that reads a vault takes --vault (the database file; its sidecars sit \
            beside it) and --key-file or --passphrase-stdin. Every time printed, in text and JSON, is ISO 8601 UTC with \
            exactly three fractional digits (2026-01-01T09:00:00.000Z); --now, --since and --until \
            also take Unix seconds. --json prints a stable machine-readable form. The read-only \
            commands (inspect, verify, events, export-key, resume --dry-run) work on a private copy \
            of the files and never change the vault. Tokens are shown only as fingerprints (keyed \
            BLAKE2b, 16 hex digits); export-key is the one exception, and it prints the database \
            key, never a token.

            Output: JSON keys are added over time, never renamed; every command that reads a vault \
            names it as "vault", and "session" is always the session object or null. Text output \
            is aligned tables, in colour only when stdout is a terminal (NO_COLOR turns it off). \
            Text that came from outside (a subject, a path) is shown, never obeyed: control \
            characters and bidi overrides are escaped in text output; JSON stays exact. A corrupted \
            vault is wiped only by resume and wipe, and never on a wrong or missing key or a file \
            with no vault header. The tool refuses core dumps before it reads its arguments, so a \
            crash leaves no key in a core file.
            """ + ExitStatus.help,
        version: SessionVaultVersion.current,
        subcommands: [
            KeygenCommand.self, ImportCommand.self, ResumeCommand.self, InspectCommand.self, VerifyCommand.self,
            EventsCommand.self, LogoutCommand.self, BiometricCommand.self, RekeyCommand.self, WipeCommand.self,
            ExportKeyCommand.self, DemoCommand.self
        ])

    /// Before any argument is parsed or key read: a crash must not leave the key in a core file.
    static func main() async {
        _ = sessionvault_refuse_core_dumps()
        await run(Array(CommandLine.arguments.dropFirst()))
    }

    /// ArgumentParser's own `main`, keeping the one contract for usage errors too: with --json,
    /// stdout holds the JSON error object (status 64) as it does for every other error, and
    /// stderr the usual message and usage.
    private static func run(_ arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let status = exitCode(for: error).rawValue
            // Up to a "--" that ends the options, as the parser reads them.
            if status == ExitStatus.usage, arguments.prefix(while: { $0 != "--" }).contains("--json") {
                Console().line(CLIFailure.jsonObject(message(for: error), status: status).rendered())
            }
            exit(withError: error)
        }
    }
}
