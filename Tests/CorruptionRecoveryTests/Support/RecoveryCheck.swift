import Foundation
import Testing
@testable import SessionVault

/// How every case of the suite ends: `Vault.recover` wipes, nothing secret is left on disk, the
/// tombstone says why, and a fresh vault opens empty and works.
enum RecoveryCheck {
    /// - Parameter keepsAnotherVaultsKey: for `wrongKey`: the key file holds another vault's
    ///   key (it fails this vault's key check value), so the wipe must leave it byte for byte,
    ///   and the fresh vault is created with it.
    static func expectCleanRecovery(
        _ fixture: DamageFixture, from reason: CorruptionReason, keepsAnotherVaultsKey: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let otherKey = keepsAnotherVaultsKey ? FileManager.default.contents(atPath: fixture.keyPath) : nil
        try Vault.recover(at: fixture.path, keyProvider: fixture.keys, reason: reason)
        if keepsAnotherVaultsKey {
            #expect(
                otherKey != nil && FileManager.default.contents(atPath: fixture.keyPath) == otherKey,
                "another vault's key file was changed by the wipe", sourceLocation: sourceLocation)
        }

        // Nothing of the old vault is left: only the tombstone (and the lock files, which hold
        // no data and are never deleted: see `FileLock`), and no secret bytes anywhere.
        let locks = [fixture.files.structureLock, fixture.files.refreshLock]
        for lock in locks where FileManager.default.fileExists(atPath: lock) {
            #expect(FileIO.size(lock) == 0, "a lock file holds data", sourceLocation: sourceLocation)
        }
        let remaining = fixture.directory.allFiles().filter { !locks.contains($0) && !(keepsAnotherVaultsKey && $0 == fixture.keyPath) }
        #expect(
            remaining == [fixture.files.tombstone], "files left after the wipe: \(remaining.map { ($0 as NSString).lastPathComponent })",
            sourceLocation: sourceLocation)
        for file in remaining {
            let bytes = [UInt8](FileManager.default.contents(atPath: file) ?? Data())
            for (index, secret) in fixture.secrets.enumerated() where contains(bytes, secret) {
                Issue.record(
                    "secret #\(index) (token, seal or key bytes) survives in \((file as NSString).lastPathComponent)",
                    sourceLocation: sourceLocation)
            }
        }
        let tombstone = Vault.tombstone(at: fixture.path)
        #expect(tombstone?.reason == reason.kind, sourceLocation: sourceLocation)
        #expect(tombstone?.version == SessionVaultVersion.current, sourceLocation: sourceLocation)

        // A fresh, empty vault that works: open, store, read back, verify.
        let fresh = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
        #expect(try await fresh.snapshot() == .empty(.wipedAfterCorruption(reason.kind)), sourceLocation: sourceLocation)
        let stored = try await fresh.store(TokenValues.response(900))
        #expect(TokenValues.text(try await fresh.refreshToken()) == TokenValues.refresh(900), sourceLocation: sourceLocation)
        #expect(try await fresh.currentSession() == stored, sourceLocation: sourceLocation)
        #expect(try await fresh.verify().intact, sourceLocation: sourceLocation)
        await fresh.close()
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count, let first = needle.first else { return false }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first && Array(haystack[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }
}
