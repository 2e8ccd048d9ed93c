import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault rekey --new-key-file K2`: re-encrypts the vault under a new root key.
struct RekeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt the vault under a new root key; afterwards the old key no longer opens it.",
        discussion: """
            Re-encrypts every page and seals every token again under the key in --new-key-file, \
            which is created (as by keygen) when it does not exist yet. A crash at any point \
            leaves a vault that one of the two keys opens. Afterwards the old key no longer opens \
            the vault: destroy it once you no longer need it.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    @Option(
        name: .customLong("new-key-file"), help: ArgumentHelp("The new root key file.", valueName: "path"),
        completion: .file(), transform: PathText.withDirectory)
    var newKeyFile: String

    func validate() throws {
        try options.requireKey()
        if newKeyFile.isEmpty { throw ValidationError("--new-key-file needs a path") }
        if let keyFile = options.keyFile,
            URL(fileURLWithPath: keyFile).standardizedFileURL.path == URL(fileURLWithPath: newKeyFile).standardizedFileURL.path
        {
            throw ValidationError("--new-key-file must differ from --key-file")
        }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let created = try await options.withExistingVault(now: Date()) { vault in
                var created = false
                if FileManager.default.fileExists(atPath: newKeyFile) {
                    do {
                        _ = try KeyFileProvider(path: newKeyFile).rootKey(recorded: .stored, create: false)
                    } catch {
                        throw CLIFailure("--new-key-file \(newKeyFile): \(error)")
                    }
                } else {
                    do {
                        try KeyFileProvider.create(at: newKeyFile)
                    } catch {
                        throw CLIFailure("--new-key-file \(newKeyFile): \(error)")
                    }
                    created = true
                }
                try await vault.rekey(to: KeyFileProvider(path: newKeyFile))
                return created
            }
            if options.json {
                console.line(
                    JSONValue.object([
                        "vault": .string(options.path),
                        "rekeyed": .bool(true),
                        "newKeyFile": .string(newKeyFile),
                        // The name import uses for the same fact.
                        "keyCreated": .bool(created)
                    ]).rendered())
            } else {
                if created { console.say("created key file \(newKeyFile) (32 random bytes, mode 0600)") }
                console.say("re-encrypted \(options.path) under the key in \(newKeyFile)")
                console.line(console.paint("The old key no longer opens this vault; destroy it once you no longer need it.", .dim))
            }
            return 0
        }
    }
}
