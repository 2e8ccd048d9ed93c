import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("Recovery wipe: idempotent and crash-safe")
    struct WipeCrashTests {
        /// `VaultWiper`'s steps, in its order: tombstone, key, then -rekey, -creating,
        /// -creating-journal, -wal, -shm, -journal, database, header.
        static func steps(_ fixture: DamageFixture, _ reason: CorruptionReason) -> [() throws -> Void] {
            let tombstone = Tombstone(reason: reason.kind, detail: reason.detail, wipedAt: Date())
            var steps: [() throws -> Void] = [
                { try tombstone.write(to: fixture.files.tombstone) },
                { try fixture.keys.destroyKey() }
            ]
            for path in fixture.files.wipeOrder { steps.append({ try FileIO.removeIfPresent(path) }) }
            return steps
        }

        @Test(
            "stopped after any step, the next open says corrupted or missing, never the old session",
            arguments: 1...(2 + VaultFiles(database: "vault.db").wipeOrder.count))
        func interruptedWipe(_ completedSteps: Int) async throws {
            // The files of a process killed mid-run: commits still in the log.
            let fixture = try await Scenarios.leftByAKilledProcess()
            let reason = CorruptionReason(.damagedPage, "wipe interrupted in a test")
            for step in Self.steps(fixture, reason).prefix(completedSteps) { try step() }
            // The app's own open: it creates a vault where none is left.
            do {
                let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                let snapshot = try await vault.snapshot()
                await vault.close()
                if case .session = snapshot {
                    // Only before anything was destroyed (the tombstone alone) may the vault still
                    // open, and then with all of its data: the last commit, which lives in the log.
                    #expect(completedSteps == 1, "after \(completedSteps) wipe steps the vault opened with a session")
                    let reopened = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                    #expect(TokenValues.text(try await reopened.refreshToken()) == TokenValues.refresh(63))
                    await reopened.close()
                }
            } catch {
                guard case .corrupted = error else {
                    Issue.record("after \(completedSteps) wipe steps: \(error), expected corrupted or missing")
                    return
                }
            }
            // Running the wipe again finishes the job.
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        @Test("wiping twice is the same as wiping once")
        func wipeIsIdempotent() async throws {
            let fixture = try await Scenarios.refreshExpiryBeforeIssue()
            let reason = CorruptionReason(.invariantViolation, "twice")
            try Vault.recover(at: fixture.path, keyProvider: fixture.keys, reason: reason)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }
    }
}
