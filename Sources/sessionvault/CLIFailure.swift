import ArgumentParser
import SessionVault

/// A failure the CLI reports as one line on stderr (never a stack trace) with an exit status.
///
/// Statuses: see `ExitStatus`, the one table every command keeps.
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32 = CLIFailure.failure) {
        self.message = message
        self.status = status
    }

    static let failure: Int32 = ExitStatus.damaged
    static let keyProblem: Int32 = ExitStatus.keyProblem
    static let refused: Int32 = ExitStatus.refused

    var description: String { message }

    /// The same failure with its message rewritten (e.g. a private copy's path replaced by the
    /// original's).
    func rewritten(_ transform: (String) -> String) -> CLIFailure { CLIFailure(transform(message), status: status) }

    /// A vault error as a failure. Key problems (wrong or missing key, a key file refused, a key
    /// that cannot be read now) get `keyStatus`: 2 (`ExitStatus.keyProblem`) for every command.
    init(_ error: VaultError, keyStatus: Int32 = CLIFailure.keyProblem) {
        switch error {
        case .corrupted(let reason) where reason.kind == .keyMissing:
            // The same words resume uses: the vault is most likely fine and the path mistyped.
            self.init("no key was found for this vault (keyMissing: a mistyped --key-file?): \(reason.detail)", status: keyStatus)
        case .otherKey:
            self.init("\(error) (a mistyped --key-file?)", status: keyStatus)
        case .corrupted(let reason) where reason.kind == .wrongKey:
            self.init("\(error)", status: keyStatus)
        case .corrupted:
            self.init("\(error) (run `sessionvault resume` to recover, or `sessionvault wipe --yes`)")
        case .keyProvider, .unavailable:
            self.init("\(error)", status: keyStatus)
        default:
            self.init("\(error)")
        }
    }

    /// `{"error": {"message", "status"}}`: what stdout holds for any error under `--json`.
    static func jsonObject(_ message: String, status: Int32) -> JSONValue {
        .object(["error": .object(["message": .string(Console.oneLine(message)), "status": .int(Int64(status))])])
    }

    /// Runs a command body: a thrown failure becomes one line on stderr and its exit status
    /// (with `json`, also `{"error": {"message", "status"}}` on stdout, so a script reading
    /// stdout always gets one JSON object); a non-zero status returned by the body exits with
    /// it. Usage errors pass through to ArgumentParser (exit 64 with the help hint).
    static func reporting(
        _ console: Console, keyStatus: Int32 = CLIFailure.keyProblem, json: Bool = false,
        _ body: () async throws -> Int32
    ) async throws {
        let status: Int32
        func fail(_ message: String, _ code: Int32) -> ExitCode {
            console.error(message)
            if json { console.line(jsonObject(message, status: code).rendered()) }
            return ExitCode(code)
        }
        do {
            status = try await body()
        } catch let failure as CLIFailure {
            throw fail(failure.message, failure.status)
        } catch let error as VaultError {
            let failure = CLIFailure(error, keyStatus: keyStatus)
            throw fail(failure.message, failure.status)
        } catch let error as KeyProviderError {
            throw fail("\(error)", keyStatus)
        } catch let error as ValidationError {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            throw fail("\(error)", failure)
        }
        if status != 0 { throw ExitCode(status) }
    }
}
