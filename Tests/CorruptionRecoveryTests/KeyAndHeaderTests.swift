import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("The key and the header: wrong, deleted, damaged")
    struct KeyAndHeaderTests {
        @Test("another valid key: wrongKey, told apart by the key check value without reading the file")
        func wrongKey() async throws {
            let fixture = try await Scenarios.wrongKey()
            let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .wrongKey)
            // The decision not to wipe a wrong key automatically rests on this: nothing was touched.
            #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.path)) == before)
            #expect(!FileManager.default.fileExists(atPath: fixture.files.wal))
            // An explicit recover does wipe the vault, but not the key: it fails this vault's key
            // check value, so it is another vault's, not this one's to destroy.
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason), keepsAnotherVaultsKey: true)
        }

        @Test("the key file deleted (a restored backup without its device key): keyMissing")
        func keyFileDeleted() async throws {
            let fixture = try await Scenarios.keyFileDeleted()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .keyMissing)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the key file damaged (our magic and version, checksum fails): keyMissing; recovery keeps it aside, never destroys it")
        func keyFileDamaged() async throws {
            let fixture = try await Scenarios.keyFileDamaged()
            let damagedKey = try Data(contentsOf: URL(fileURLWithPath: fixture.keyPath))
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .keyMissing)
            #expect(reason.detail.contains("damaged"))
            try Vault.recover(at: fixture.path, keyProvider: fixture.keys, reason: reason)
            // Unverifiable, so not destroyed: moved aside byte for byte under a name that says why.
            let aside = fixture.directory.allFiles().filter { $0.hasPrefix(fixture.keyPath + ".damaged-") }
            #expect(aside.count == 1)
            #expect(aside.first.flatMap { FileManager.default.contents(atPath: $0) } == damagedKey)
            #expect(!FileManager.default.fileExists(atPath: fixture.keyPath))
            #expect(!FileManager.default.fileExists(atPath: fixture.path))
            #expect(!FileManager.default.fileExists(atPath: fixture.files.header))
            // And the user is back to a working vault, with a new key at the configured path.
            let fresh = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            #expect(try await fresh.snapshot() == .empty(.wipedAfterCorruption(.keyMissing)))
            try await fresh.store(TokenValues.response(901))
            #expect(try await fresh.verify().intact)
            await fresh.close()
        }

        @Test("the header deleted: the database cannot be proven ours; misconfigured, every byte left as it was")
        func headerDeleted() async throws {
            let fixture = try await Scenarios.headerDeleted()
            await fixture.expectRefusedUntouched()
        }

        @Test("both header slots zeroed (no magic left): not provably ours; misconfigured, nothing touched")
        func headerZeroed() async throws {
            let fixture = try await Scenarios.headerZeroed()
            await fixture.expectRefusedUntouched()
        }

        @Test("both header slots damaged, our magic kept: headerDamaged, wiped")
        func headerBothSlotsDamaged() async throws {
            let fixture = try await Scenarios.headerBothSlotsDamaged()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .headerDamaged)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("one header slot torn: the other slot still opens the vault")
        func oneHeaderSlotTorn() async throws {
            let fixture = try await DamageFixture.make()
            let header = try #require(try HeaderFile.read(at: fixture.files.header))
            // Damage the slot holding the newest copy; the older slot has the same key check value.
            try fixture.flipByte(at: header.slotOffset + 40, in: fixture.files.header)
            let examination = await fixture.examine()
            #expect(examination.openError == nil)
            #expect(examination.dataUnaltered == true)
            #expect(examination.report?.intact == true)
        }
    }
}
