import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting

extension CorruptionRecovery {
    /// Putting back part or all of an older copy of the vault's files, with the same key, is caught
    /// at open instead of bringing an older session back as valid.
    @Suite("Rollback that cannot be spliced: a page, the database with its header, with its log")
    struct SpliceRollbackTests {
        /// The fixture's vault signed in at version 1, biometric unlock off; its files as bytes.
        private static func signedInAtVersionOne() async throws -> (fixture: DamageFixture, old: [String: Data]) {
            let fixture = try await DamageFixture.make(rotations: 0, domainStateSize: 0)
            var old: [String: Data] = [:]
            for file in [fixture.path, fixture.files.header] { old[file] = try Data(contentsOf: URL(fileURLWithPath: file)) }
            return (fixture, old)
        }

        private static func openReason(_ fixture: DamageFixture) -> CorruptionReason? {
            do {
                _ = try fixture.open()
                return nil
            } catch {
                guard case .corrupted(let reason) = error else { return CorruptionReason(.invariantViolation, "unexpected \(error)") }
                return reason
            }
        }

        @Test("the sessions table's page copied back from an older file: rollback at open and in verify")
        func sessionsPageSpliced() async throws {
            let (fixture, old) = try await Self.signedInAtVersionOne()
            let vault = try fixture.open()
            try await vault.rotate(TokenValues.response(2, withIdentity: false))
            try await vault.setBiometricUnlock(true)
            await vault.close()

            // The row is small: the whole session lives on the table's root page.
            let page = try fixture.rootPage(of: "sessions")
            let offset = (page - 1) * DamageFixture.pageSize
            let oldBytes = try #require(old[fixture.path])
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.path))
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: oldBytes.subdata(in: offset..<(offset + DamageFixture.pageSize)))
            try handle.close()

            // The splice took: every page still authenticates, and the row is the old one.
            let raw = try fixture.raw()
            #expect(try raw.scalarInt("SELECT token_version FROM sessions") == 1)
            #expect(try raw.scalarInt("SELECT biometric_enabled FROM sessions") == 0)
            #expect(try raw.scalarInt("SELECT generation FROM vault_state") ?? 0 > 2, "the state row is the current one")

            let reason = try #require(Self.openReason(fixture), "the spliced vault opened")
            #expect(reason.kind == .rollback, "\(reason)")
            let report = try Vault.verify(at: fixture.path, keyProvider: fixture.keys)
            #expect(report.findings.map(\.kind).contains(.rollback), "\(report.findings)")
        }

        @Test("the database and its header put back together: caught by the generation kept beside the key")
        func databaseAndHeaderRestored() async throws {
            let (fixture, old) = try await Self.signedInAtVersionOne()
            let vault = try fixture.open()
            try await vault.signOut()
            await vault.close()
            for (file, bytes) in old { try bytes.write(to: URL(fileURLWithPath: file)) }
            for sidecar in [fixture.files.wal, fixture.files.sharedMemory] { try? FileManager.default.removeItem(atPath: sidecar) }

            let reason = try #require(Self.openReason(fixture), "the restored signed-in copy opened")
            #expect(reason.kind == .rollback, "\(reason)")
            #expect(reason.detail.contains("key provider recorded generation"), "\(reason)")

            // Control: without the record beside the key, the restored pair is consistent in
            // itself and opens with the signed-out session back. That is what the record is for.
            try FileManager.default.removeItem(atPath: fixture.keys.generationRecordPath)
            let reopened = try fixture.open()
            #expect(try await reopened.currentSession() != nil)
            await reopened.close()
        }

        @Test("the database, its write-ahead log and its header put back together: rollback")
        func databaseLogAndHeaderRestored() async throws {
            let fixture = try await DamageFixture.make(rotations: 0, domainStateSize: 0)
            let vault = try fixture.open()
            try await vault.rotate(TokenValues.response(2, withIdentity: false))
            // Taken while the vault is open: the rotation is in the log, not yet in the database.
            var copied: [String: Data] = [:]
            for file in [fixture.path, fixture.files.wal, fixture.files.header] {
                copied[file] = try Data(contentsOf: URL(fileURLWithPath: file))
            }
            #expect((copied[fixture.files.wal]?.count ?? 0) > 0, "the copy holds log frames")
            try await vault.rotate(TokenValues.response(3, withIdentity: false))
            try await vault.signOut()
            await vault.close()
            try? FileManager.default.removeItem(atPath: fixture.files.sharedMemory)
            for (file, bytes) in copied { try bytes.write(to: URL(fileURLWithPath: file)) }

            let reason = try #require(Self.openReason(fixture), "the restored copy opened")
            #expect(reason.kind == .rollback, "\(reason)")
        }

        @Test("a header edited to an older generation, checksum recomputed: refused, unsigned or forged")
        func headerEditedWithoutTheKey() async throws {
            let (fixture, _) = try await Self.signedInAtVersionOne()
            let current = try #require(try HeaderFile.read(at: fixture.files.header))
            var edited = current
            edited.generation = 1
            // Unsigned (what a tool without the key writes), then with a made-up tag.
            _ = try HeaderFile.create(at: fixture.files.header, header: edited, keys: nil)
            #expect(Self.openReason(fixture)?.kind == .headerDamaged)
            let made = try VaultKeys(root: InMemoryKeyProvider().rootKey(recorded: nil, create: false).bytes)
            _ = try HeaderFile.create(
                at: fixture.files.header,
                header: VaultHeader(
                    generation: 1, derivation: current.derivation,
                    keyCheckValue: current.keyCheckValue), keys: made)
            #expect(Self.openReason(fixture)?.kind == .headerDamaged)
            // The database itself was never touched: with its own header back it opens.
            _ = try HeaderFile.create(
                at: fixture.files.header, header: current, keys: try VaultKeys(root: fixture.keys.rootKey(recorded: .stored, create: false).bytes))
            let reopened = try fixture.open()
            #expect(try await reopened.currentSession()?.tokenVersion == 1)
            await reopened.close()
        }
    }
}
