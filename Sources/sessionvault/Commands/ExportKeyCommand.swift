import ArgumentParser
import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// `sessionvault export-key --format sqlcipher`: the database key, for the stock `sqlcipher`
/// shell. The one command that prints a secret, on purpose.
struct ExportKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-key",
        abstract: "Print the statements that open the vault in a stock sqlcipher shell, key first (a warning goes to stderr).",
        discussion: """
            Prints, one per line: PRAGMA key = "x'<64 hex>'"; then cipher_page_size 4096, kdf_iter \
            64000, cipher_hmac_algorithm HMAC_SHA1 and cipher_kdf_algorithm PBKDF2_HMAC_SHA1. Pasted as \
            is into `sqlcipher <vault>` it opens the vault in a 3.x shell (Debian's 3.4.1) and a 4.x \
            shell alike. With --json: {"vault", "statements": [...]}. The key opens the pages only: \
            tokens stay sealed under a separate key. The vault's files are only read. --evidence adds \
            the chain-of-custody record: after the statements as SQL comments (-- lines, so the output \
            still pastes as is), or as "evidence" in the JSON. It works on a damaged vault too: only \
            the header and the key check value are needed. Use the shell on a second copy of the \
            files: the shell itself writes (it checkpoints the log when it closes).
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    @Option(help: ArgumentHelp("The output form; only sqlcipher exists.", valueName: "format"))
    var format: Format = .sqlcipher

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws { try options.requireKey() }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let ranAt = Date()
            let location = try options.location()
            try location.requireVault()
            let keys = try options.keyProvider(keyStatus: CLIFailure.keyProblem)
            // The header and key check are read from the private copy too: nothing of the
            // original is opened for more than a read.
            let (rawKey, record) = try await options.withEvidenceCopy { copy in
                let rawKey = try Vault.exportDatabaseKey(at: copy.copy.database, keyProvider: keys)
                guard evidence.requested else { return (rawKey, nil as CustodyRecord?) }
                // The key alone needs no open; the record does, to tell which pages of the log the
                // main file lacks (applied to the copy only). A vault too damaged to open still
                // gets its key, and a record that says the log was not checked.
                let opened = (try? await options.withOpenCopy(copy, keys: keys, now: ranAt) { _ in }) != nil
                return (rawKey, CustodyRecord(command: "export-key", ranAt: ranAt, copy: copy, opened: opened))
            }
            console.warning(
                """
                stdout carries the database key of \(options.path): with it and a copy of the file anyone can read \
                the vault's metadata (tokens stay sealed). Keep it out of shell history, tickets and chat.
                """)
            // The key goes from locked memory to the descriptor with write(2); no String holds it.
            // Its hex digits and the recipe's text need no JSON escaping beyond the quotes.
            let settings = Recipe.settings
            let written: Bool
            if options.json {
                let evidenceMember: String = record.map { ",\"evidence\":" + $0.json.rendered() } ?? ""
                let quotedSettings: String = settings.map { ",\"\($0)\"" }.joined()
                let opening: String = "{\"vault\":" + JSONValue.string(options.path).rendered() + ",\"statements\":[\"PRAGMA key = \\\""
                let closing: String = "\\\";\"" + quotedSettings + "]" + evidenceMember + "}\n"
                written = Self.write(opening) && rawKey.withUnsafeBytes(Self.write) && Self.write(closing)
            } else {
                // The record as SQL comments: pasted into the shell with the statements, it is skipped.
                let commentLines: [String] = record.map { $0.lines(Console(usesColour: false)) } ?? []
                let comments: String = commentLines.isEmpty ? "" : "--\n" + commentLines.map { "-- " + $0 + "\n" }.joined()
                let after: String = "\n" + settings.joined(separator: "\n") + "\n" + comments
                written =
                    Self.write(Recipe.keyPrefix) && rawKey.withUnsafeBytes(Self.write) && Self.write(Recipe.keySuffix)
                    && Self.write(after)
            }
            guard written else { throw CLIFailure("the key could not be written to standard output") }
            return 0
        }
    }

    private static func write(_ text: StaticString) -> Bool {
        Console.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount), to: STDOUT_FILENO)
    }

    private static func write(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { Console.write($0, to: STDOUT_FILENO) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer) -> Bool { Console.write(bytes, to: STDOUT_FILENO) }
}

extension ExportKeyCommand {
    /// The form `export-key` writes the database key in.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// `PRAGMA key = "x'<64 hex>'";`, for the stock `sqlcipher` shell.
        case sqlcipher
    }

    /// The statements that open a vault in a stock `sqlcipher` shell, in the order they must
    /// run.
    ///
    /// The key comes first (SQLCipher 4.7 refuses any statement before it), then every pinned
    /// cipher setting, before the first read. Each shell needs a different part and ignores the
    /// rest: Debian's 3.4.1 defaults to 1024-byte pages, so it needs the page size (and does not
    /// know the algorithm pragmas, which SQLite then ignores as unknown); a 4.x shell defaults to
    /// 4096-byte pages with HMAC-SHA512 and needs the SHA1 algorithms. The raw key form skips the
    /// KDF, but the KDF settings are pinned too so the recipe states the vault's settings
    /// completely.
    enum Recipe {
        /// Before the key in its raw form `x'<64 hex>'`.
        static let keyPrefix: StaticString = "PRAGMA key = \""
        /// After it.
        static let keySuffix: StaticString = "\";"
        /// The settings after the key, one statement each.
        static let settings = [
            "PRAGMA cipher_page_size = 4096;",
            "PRAGMA kdf_iter = 64000;",
            "PRAGMA cipher_hmac_algorithm = HMAC_SHA1;",
            "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;"
        ]
    }
}
