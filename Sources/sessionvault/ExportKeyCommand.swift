import ArgumentParser
import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `sessionvault export-key --format sqlcipher`: the database key, for the stock `sqlcipher`
/// shell. The one command that prints a secret, on purpose.
struct ExportKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-key",
        abstract: "Print the database key as a PRAGMA line for the stock sqlcipher shell (a warning goes to stderr).",
        discussion: """
            Prints the single line PRAGMA key = "x'<64 hex>'"; then add PRAGMA cipher_page_size = 4096; \
            in the shell, and on a SQLCipher 4.x shell also PRAGMA cipher_hmac_algorithm = HMAC_SHA1; \
            PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1; (the vault pins SQLCipher 3's settings; \
            3.x shells ignore these two). The key opens the pages only: tokens stay sealed under a separate key. \
            Exit status: 0 printed, 1 the vault cannot be read, 2 key missing or wrong.
            """)

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("The output form; only sqlcipher exists.", valueName: "format"))
    var format: ExportKeyFormat

    func validate() throws {
        if options.json { throw ValidationError("export-key prints one PRAGMA line; --json is not supported") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, keyStatus: CLIFailure.keyProblem) {
            let location = try options.location()
            try location.requireVault()
            let keys = try options.keyProvider(keyStatus: CLIFailure.keyProblem)
            let rawKey = try Vault.exportDatabaseKey(at: options.path, keys: keys)
            console.warning("""
                stdout carries the database key of \(options.path): with it and a copy of the file anyone can read \
                the vault's metadata (tokens stay sealed). Keep it out of shell history, tickets and chat.
                """)
            // The key goes from locked memory to the descriptor with write(2); no String holds it.
            let written = Self.write("PRAGMA key = \"") && rawKey.withUnsafeBytes(Self.write) && Self.write("\";\n")
            guard written else { throw CLIFailure("the key could not be written to standard output") }
            return 0
        }
    }

    private static func write(_ text: StaticString) -> Bool {
        Console.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), to: STDOUT_FILENO)
    }

    private static func write(_ bytes: UnsafeRawBufferPointer) -> Bool { Console.write(bytes, to: STDOUT_FILENO) }
}
