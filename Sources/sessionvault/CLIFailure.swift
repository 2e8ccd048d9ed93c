import ArgumentParser
import SessionVault

/// A failure the CLI reports as one line on stderr (never a stack trace) with an exit status.
///
/// Statuses: 0 success; 1 failure or damage found; 2 key missing or wrong (for the commands whose
/// table says so); 64 usage error (ArgumentParser's `ValidationError`).
struct CLIFailure: Error, CustomStringConvertible {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32 = CLIFailure.failure) {
        self.message = message
        self.status = status
    }

    static let failure: Int32 = 1
    static let keyProblem: Int32 = 2

    var description: String { message }

    /// A vault error as a failure. Key problems (wrong or missing key, a key file refused, a key
    /// that cannot be read now) get `keyStatus`: 2 for inspect, verify and export-key, 1 elsewhere.
    init(_ error: VaultError, keyStatus: Int32 = CLIFailure.failure) {
        switch error {
        case .corrupted(let reason) where reason.kind == .wrongKey || reason.kind == .keyMissing:
            self.init("\(error)", status: keyStatus)
        case .corrupted:
            self.init("\(error) (run `sessionvault resume` to recover, or `sessionvault wipe --yes`)")
        case .keyProvider, .unavailable:
            self.init("\(error)", status: keyStatus)
        default:
            self.init("\(error)")
        }
    }

    /// Runs a command body: a thrown failure becomes one line on stderr and its exit status; a
    /// non-zero status returned by the body exits with it. Usage errors pass through to
    /// ArgumentParser (exit 64 with the help hint).
    static func reporting(_ console: Console, keyStatus: Int32 = CLIFailure.failure,
                          _ body: () async throws -> Int32) async throws {
        let status: Int32
        do {
            status = try await body()
        } catch let failure as CLIFailure {
            console.error(failure.message)
            throw ExitCode(failure.status)
        } catch let error as VaultError {
            let failure = CLIFailure(error, keyStatus: keyStatus)
            console.error(failure.message)
            throw ExitCode(failure.status)
        } catch let error as KeyProviderError {
            console.error("\(error)")
            throw ExitCode(keyStatus)
        } catch let error as ValidationError {
            throw error
        } catch let error as ExitCode {
            throw error
        } catch {
            console.error("\(error)")
            throw ExitCode(failure)
        }
        if status != 0 { throw ExitCode(status) }
    }
}
