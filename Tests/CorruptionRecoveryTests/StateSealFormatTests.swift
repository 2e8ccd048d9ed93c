import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    /// The seal's byte encoding is part of the file format: a vault sealed by one build must
    /// verify under the next, or every launch after an upgrade would read as a rollback (and be
    /// wiped). This test rebuilds the sealed message from SQL alone, with `typeof` and `hex`, in
    /// the documented encoding, and checks the tag the library stored.
    @Suite("The state seal's encoding is stable")
    struct StateSealFormatTests {
        /// SQLite's `hex()` output (upper case, even length) as bytes.
        private static func bytes(ofHex text: String) -> [UInt8] {
            let digits = Array(text.utf8)
            return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
        }

        @Test("the stored seal is the keyed tag of the documented encoding of the row")
        func storedSealMatchesTheDocumentedEncoding() async throws {
            let fixture = try await DamageFixture.make(rotations: 1, domainStateSize: 40)
            let vault = try fixture.open()
            try await vault.setBiometricUnlock(true, domainState: [1, 2, 3])
            await vault.close()

            let columns =
                ["v.generation", "v.vault_id", "v.biometric_preference", "v.current_session_id"]
                + StateSeal.sessionColumns.map { "s.\($0.rawValue)" }
            let selected = columns.map { "typeof(\($0)), hex(\($0)), \($0)" }.joined(separator: ", ")
            let raw = try fixture.raw()
            let statement = try raw.prepare(
                """
                SELECT \(selected), hex(v.state_mac) FROM vault_state v LEFT JOIN sessions s ON s.id = v.current_session_id
                """)
            #expect(try statement.step())
            var message: [UInt8] = []
            var kinds: Set<String> = []
            func littleEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
            for index in columns.indices {
                let type = statement.text(Int32(3 * index)) ?? ""
                kinds.insert(type)
                let bytes = Self.bytes(ofHex: statement.text(Int32(3 * index + 1)) ?? "")
                switch type {
                case "null": message += [0] + littleEndian(0)
                case "integer": message += [1] + littleEndian(8) + littleEndian(UInt64(bitPattern: statement.int64(Int32(3 * index + 2))))
                case "text": message += [2] + littleEndian(UInt64(bytes.count)) + bytes
                default: message += [3] + littleEndian(UInt64(bytes.count)) + bytes
                }
            }
            let stored = Self.bytes(ofHex: statement.text(Int32(3 * columns.count)) ?? "")
            statement.reset()
            #expect(kinds == ["null", "integer", "text", "blob"], "the row exercises every storage class: \(kinds)")

            let keys = try VaultKeys(root: fixture.keys.rootKey(recorded: .stored, create: false).bytes)
            let expected = keys.integrityTag(StateSeal.label, message)
            #expect(stored == expected, "the seal is the documented encoding's tag")
            // The launch checks the seal on the session row it reads anyway: every sealed column
            // must be among the ones it selects.
            #expect(!SessionRecord.sealedColumnPositions.contains(-1) && SessionRecord.sealedColumnPositions.count == StateSeal.sessionColumns.count)
        }
    }
}
