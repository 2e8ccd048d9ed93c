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
            // An explicit recover does wipe it.
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the key file deleted (a restored backup without its device key): keyMissing")
        func keyFileDeleted() async throws {
            let fixture = try await Scenarios.keyFileDeleted()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .keyMissing)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the key file damaged: keyMissing (the key it held is lost), never wrongKey or a silent other key")
        func keyFileDamaged() async throws {
            let fixture = try await Scenarios.keyFileDamaged()
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .keyMissing)
            #expect(reason.detail.contains("damaged"))
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        @Test("the header deleted: headerDamaged")
        func headerDeleted() async throws {
            let fixture = try await Scenarios.headerDeleted()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .headerDamaged)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("both header slots overwritten: headerDamaged")
        func headerZeroed() async throws {
            let fixture = try await Scenarios.headerZeroed()
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
