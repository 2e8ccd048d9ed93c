import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault keygen --key-file K`: a new random root key file.
struct KeygenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Create a new random root key file (mode 0600). Never overwrites an existing file.",
        discussion: """
            Writes 32 random bytes in SessionVault's key file form (56 bytes with its version and \
            checksum), mode 0600 whatever the umask. An existing file or symbolic link at the path \
            is never overwritten: keygen stops with exit status 1. Keep the key file apart from \
            backups of the vault: the two together open it.
            """ + ExitStatus.help)

    @Option(
        name: .customLong("key-file"), help: ArgumentHelp("Where to write the new key file.", valueName: "path"),
        completion: .file(), transform: PathText.withDirectory)
    var keyFile: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        if keyFile.isEmpty { throw ValidationError("--key-file needs a path") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: json) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: keyFile, isDirectory: &isDirectory) || Self.isSymbolicLink(keyFile) {
                throw CLIFailure(
                    isDirectory.boolValue
                        ? "--key-file \(keyFile) is a directory"
                        : "\(keyFile) already exists; keygen never overwrites a key file")
            }
            let directory = FileIO.parentDirectory(of: keyFile)
            if !FileManager.default.fileExists(atPath: directory) {
                throw CLIFailure("the directory \(directory) for --key-file does not exist")
            }
            do {
                try KeyFileProvider.create(at: keyFile)
            } catch {
                throw CLIFailure("--key-file \(keyFile): \(error)")
            }
            if json {
                console.line(JSONValue.object(["keyFile": .string(keyFile), "mode": .string("0600"), "created": .bool(true)]).rendered())
            } else {
                console.say("created key file \(keyFile) (32 random bytes, mode 0600)")
                console.line(console.paint("Keep it apart from backups of the vault: the file and its key together open it.", .dim))
            }
            return 0
        }
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil
    }
}
