import ArgumentParser
import Foundation

/// `sessionvault demo`: the guided tour `make run` shows a new user.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A tour: create a key and a vault, sign in, then walk the clock and a damaged byte through every resume path.",
        discussion: "Uses only its own files in the directory (vault.key, vault.db and its sidecars), removed first on every run." + ExitStatus.help)

    @Option(name: .customLong("dir"), help: ArgumentHelp("Where the tour keeps its key and vault.", valueName: "dir"),
            completion: .directory)
    var directory = ".demo"

    func validate() throws {
        if directory.isEmpty { throw ValidationError("--dir needs a path") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console) {
            try await DemoTour(directory: directory, console: console).run()
            return 0
        }
    }
}
