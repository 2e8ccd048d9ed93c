import Foundation
import SessionVaultTestSupport

/// A vault made through the CLI in a temporary directory: `vault.db` with `vault.key`.
struct CLIVault {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var header: String { path + "-header" }
    var tombstone: String { path + "-tombstone" }

    /// `--vault <path> --key-file <key>`.
    var vaultArguments: [String] { ["--vault", path, "--key-file", keyPath] }

    /// Runs `sessionvault <command> --vault … --key-file … <extra>`.
    func run(_ command: [String], _ extra: [String] = [], stdin: Data? = nil, timeout: TimeInterval = 60) async throws -> CLIResult {
        try await CLI.run(command + vaultArguments + extra, stdin: stdin, timeout: timeout)
    }

    /// A vault holding the GoTrue fixture, signed in at `Fixtures.signIn`.
    static func signedIn(biometric: Bool = false) async throws -> CLIVault {
        let vault = CLIVault()
        let result = try await vault.run(["import"], ["--now", Fixtures.signIn] + (biometric ? ["--biometric"] : []), stdin: Fixtures.goTrueJSON())
        guard result.status == 0 else { throw SetupFailed(step: "import", result: result) }
        return vault
    }

    func exists(_ file: String) -> Bool { FileManager.default.fileExists(atPath: file) }

    /// Flips one byte of the database at `offset` (page 1 lies in bytes 0..<4096).
    func damageDatabase(at offset: UInt64 = 1000) async throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        let byte = try handle.read(upToCount: 1)?.first ?? 0
        try handle.seek(toOffset: offset)
        try handle.write(contentsOf: Data([byte ^ 0xFF]))
    }

    struct SetupFailed: Error, CustomStringConvertible {
        let step: String
        let result: CLIResult
        var description: String { "\(step) failed with status \(result.status): \(result.stderr)" }
    }
}
