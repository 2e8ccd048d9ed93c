import Foundation
import SessionVaultTestSupport
@testable import SessionVault
import SessionVaultTesting

/// A vault in a temporary directory with a key file, opened with a manual clock.
struct TestVault {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }
    var files: VaultFiles { VaultFiles(database: path) }

    func open(policy: ResumePolicy = ResumePolicy(), create: Bool = true) throws -> Vault {
        try Vault.open(at: path, keyProvider: keys, policy: policy, clock: clock.function, create: create)
    }

    /// Every byte of the vault's files (database and sidecars).
    func allFileBytes() -> [String: Data] {
        var result: [String: Data] = [:]
        for path in [files.database, files.wal, files.sharedMemory, files.journal, files.header, files.tombstone] {
            if let data = FileManager.default.contents(atPath: path) { result[path] = data }
        }
        return result
    }
}
