import Foundation
import SessionVault

extension VaultOptions {
    /// Runs a read-only command's `body` on a private copy of the vault (see `EvidenceCopy`),
    /// then deletes the copy. A vault error escaping `body` becomes a failure with `keyStatus`
    /// for key problems, naming the original files rather than the copy's.
    func withEvidenceCopy<T>(keyStatus: Int32 = CLIFailure.keyProblem, _ body: (EvidenceCopy) async throws -> T) async throws -> T {
        let copy = try EvidenceCopy(of: VaultFiles(database: path))
        defer { copy.remove() }
        do {
            return try await body(copy)
        } catch let error as VaultError {
            throw CLIFailure(error, keyStatus: keyStatus).rewritten(copy.originalPaths)
        } catch let failure as CLIFailure {
            throw failure.rewritten(copy.originalPaths)
        }
    }

    /// Opens the copy, runs `body` with the vault, and closes it whether `body` throws or not
    /// (closing is what applies the log to the copy, so the record can say what it held).
    func withOpenCopy<T>(_ copy: EvidenceCopy, keys: any KeyProvider, now: Date, _ body: (Vault) async throws -> T) async throws -> T {
        try await Self.closing(try open(copy, keys, now: now), body)
    }
}
