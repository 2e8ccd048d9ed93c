import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("History: an older copy put back, a damaged write-ahead log")
    struct HistoryTests {
        @Test("an older copy of the database restored: rollback")
        func olderCopyRestored() async throws {
            let fixture = try await Scenarios.olderCopyRestored()
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .rollback)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        @Test("a header that lags the database (a crash between commit and header write) is caught up, not rollback")
        func laggingHeaderIsNotRollback() async throws {
            let fixture = try await DamageFixture.make()
            let olderHeader = try Data(contentsOf: URL(fileURLWithPath: fixture.files.header))
            let vault = try fixture.open()
            try await vault.rotate(TokenValues.response(70, withIdentity: false))
            let generation = await vault.generation
            await vault.close()
            try olderHeader.write(to: URL(fileURLWithPath: fixture.files.header))
            let reopened = try fixture.open()
            #expect(await reopened.generation == generation)
            #expect(TokenValues.text(try await reopened.refreshToken()) == TokenValues.refresh(70))
            await reopened.close()
            #expect(try HeaderFile.read(at: fixture.files.header)?.generation == generation)
        }

        @Test("a byte flipped in the last frames of a log that outlived its process: damagedWAL, and still damagedWAL on the next open")
        func damagedLogFrame() async throws {
            let fixture = try await Scenarios.damagedWriteAheadLog(offsetFromEnd: 200)
            let walBefore = try Data(contentsOf: URL(fileURLWithPath: fixture.files.wal))
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .damagedWAL)
            // The failed open did not checkpoint the surviving frames and delete the log: the next
            // open (or the CLI) sees the same evidence and says the same thing.
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.files.wal)) == walBefore)
            let again = await fixture.examine()
            #expect(again.openReason?.kind == .damagedWAL)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the log's header damaged: every frame is ignored, damagedWAL")
        func damagedLogHeader() async throws {
            let fixture = try await Scenarios.damagedWriteAheadLog(offset: 12)
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .damagedWAL)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("an intact log that outlived its process is replayed: the last commit is there")
        func intactLogIsReplayed() async throws {
            let original = try await DamageFixture.make()
            let vault = try original.open()
            try await vault.rotate(TokenValues.response(80, withIdentity: false))
            let copy = try original.copy()
            await vault.close()
            #expect(copy.size(of: copy.files.wal) > Int(CorruptionDiagnosis.walHeaderSize))
            let reopened = try copy.open()
            #expect(TokenValues.text(try await reopened.refreshToken()) == TokenValues.refresh(80))
            #expect(try await reopened.verify().intact)
            await reopened.close()
        }
    }
}
