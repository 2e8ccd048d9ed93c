import ArgumentParser
import Foundation
import SessionVault

/// The options every vault command shares: which vault, which key, which output form.
struct VaultOptions: ParsableArguments {
    @Option(
        name: .customLong("vault"),
        help: ArgumentHelp(
            "The vault's database file; its -wal, -shm, -header and -tombstone files sit beside it.",
            valueName: "path"),
        completion: .file(), transform: PathText.withDirectory)
    var path: String

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp("The vault's root key file (mode 0600), as made by `sessionvault keygen`.", valueName: "path"),
        completion: .file(), transform: PathText.withDirectory)
    var keyFile: String?

    @Flag(
        name: .customLong("passphrase-stdin"),
        help: "Read the vault's passphrase from the first line of standard input instead of a key file.")
    var passphraseFromStandardInput = false

    @Flag(help: "Print JSON (stable keys) instead of aligned text.")
    var json = false

    func validate() throws {
        if path.isEmpty { throw ValidationError("--vault needs a path") }
        if keyFile != nil && passphraseFromStandardInput {
            throw ValidationError("give either --key-file or --passphrase-stdin, not both")
        }
        if keyFile?.isEmpty == true { throw ValidationError("--key-file needs a path") }
    }

    /// Whether a key was named. Only `inspect` works without one; every other command calls
    /// `requireKey()` from its `validate()`.
    var hasKey: Bool { keyFile != nil || passphraseFromStandardInput }

    /// Usage error (exit 64) when no key is named.
    func requireKey() throws {
        if !hasKey { throw ValidationError("a key is needed: give --key-file <path> or --passphrase-stdin") }
    }

    /// Checks `--vault` (see `VaultLocation`).
    func location() throws(CLIFailure) -> VaultLocation { try VaultLocation(path: path) }

    /// The key provider the options name. A key file that exists is checked first (regular
    /// file, mode 0600, right length and format), so a wrong file is reported as bad input and
    /// never leads to a recovery wipe; a key file that does not exist is left to the library
    /// (a missing key for an existing vault, or a new key for a new one). With
    /// `--passphrase-stdin` the first line of standard input is read now.
    func keyProvider(keyStatus: Int32 = CLIFailure.keyProblem) throws(CLIFailure) -> any KeyProvider {
        guard let keyFile else {
            do {
                return try HiddenInput.withEchoOff(prompt: "Passphrase for \(path): ") {
                    try PassphraseKeyProvider.reading(fromDescriptor: STDIN_FILENO)
                }
            } catch {
                throw CLIFailure("--passphrase-stdin: \(error)", status: keyStatus)
            }
        }
        let provider = KeyFileProvider(path: keyFile)
        do {
            _ = try provider.rootKey(recorded: .stored, create: false)
        } catch {
            switch error {
            case .missing, .unavailable: break
            default: throw CLIFailure("--key-file \(keyFile): \(error)", status: keyStatus)
            }
        }
        return provider
    }

    /// Opens the private copy of the vault (see `EvidenceCopy`) with `create: false`.
    func open(_ copy: EvidenceCopy, _ keys: any KeyProvider, now: Date) throws(VaultError) -> Vault {
        try Vault.open(at: copy.copy.database, keyProvider: keys, clock: { now }, create: false)
    }

    /// Opens the existing vault at `--vault` with `create: false`.
    func open(_ keys: any KeyProvider, now: Date) throws(VaultError) -> Vault {
        try Vault.open(at: path, keyProvider: keys, clock: { now }, create: false)
    }

    /// Opens the existing vault, runs `body` with it, and closes it whether `body` throws or not
    /// (see `closing`).
    func withExistingVault<T>(now: Date, keys: (any KeyProvider)? = nil, _ body: (Vault) async throws -> T) async throws -> T {
        try location().requireVault()
        return try await Self.closing(try open(try keys ?? keyProvider(), now: now), body)
    }

    /// Runs `body` with `vault`, then closes it whether `body` throws or not: a command never
    /// leaves a vault's connection (and its WAL) open behind an error, and on a private copy
    /// closing is what applies the log to it.
    static func closing<T>(_ vault: Vault, _ body: (Vault) async throws -> T) async throws -> T {
        do {
            let result = try await body(vault)
            await vault.close()
            return result
        } catch {
            await vault.close()
            throw error
        }
    }
}
