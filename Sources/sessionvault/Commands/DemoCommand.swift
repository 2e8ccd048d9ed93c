import ArgumentParser
import Foundation

/// `sessionvault demo`: the guided tour `make run` shows a new user.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "A tour: create a key and a vault, sign in, then walk the clock and a damaged byte through every resume path.",
        discussion: """
            The tour signs in with a sample Supabase GoTrue response, moves its own clock to show \
            valid, expired and missing, flips a byte of the database to show corrupted, wiped with \
            a tombstone, then missing, and ends with what inspect shows. `make run` runs it.

            Uses only its own files in the directory (vault.key, vault.db and its sidecars), removed first on \
            every run. With --json it prints one JSON document when the tour ends: {"tour", "directory", \
            "keyFile", "vault", "startedAt", "steps", "tryIt"}, each step {"step", "title", "at", "facts", \
            "notes"} with "path" (as resume --json, plus "app") where a launch is shown and "inspection" (as \
            inspect --json) in the last; an error is the JSON error object instead.
            """ + ExitStatus.help)

    @Option(
        name: .customLong("dir"), help: ArgumentHelp("Where the tour keeps its key and vault.", valueName: "dir"),
        completion: .directory)
    var directory = ".demo"

    @Flag(help: "Print the tour as one JSON document (stable keys) instead of text.")
    var json = false

    func validate() throws {
        if directory.isEmpty { throw ValidationError("--dir needs a path") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: json) {
            try await DemoTour(directory: directory, report: DemoReport(console: console, json: json)).run()
            return 0
        }
    }
}
