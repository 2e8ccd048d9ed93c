import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// The tombstone is read by this library, the CLI and whatever wrote it before: a file that
/// decodes must read back as the same tombstone once this library writes it again, on every
/// platform. Foundation's ISO 8601 reading accepted a fraction of a second on Linux while its
/// writing dropped it, and took a seven-digit year with text after it (the fuzz harness found
/// the round trip broken both ways).
@Suite("Tombstone format: one reading of a time, written back unchanged")
struct TombstoneFormatTests {
    static func read(_ json: String) throws -> Tombstone? {
        let path = TemporaryDirectory("sessionvault-tombstone").file("vault.tombstone")
        try FileIO.writeAtomically(path, contents: Array(json.utf8), mode: 0o600, overwrite: true)
        return try Tombstone.read(at: path)
    }

    static func writtenAndReadAgain(_ tombstone: Tombstone) throws -> Tombstone? {
        let path = TemporaryDirectory("sessionvault-tombstone").file("vault.tombstone")
        try tombstone.write(to: path)
        return try Tombstone.read(at: path)
    }

    @Test(arguments: ["2025-11-23T12:13:20.5Z", "2025-11-23T12:13:20.999Z", "2025-11-23T12:13:20Z", "2025-11-23T13:13:20+01:00"])
    func aTimeWithAFractionReadsAsItsSecond(time: String) throws {
        let json = #"{"detail":"d","reason":"rollback","version":"0.1.0","wipedAt":"\#(time)"}"#
        let tombstone = try #require(try Self.read(json))
        #expect(tombstone.wipedAt == Date(timeIntervalSince1970: 1_763_900_000))
        #expect(try Self.writtenAndReadAgain(tombstone) == tombstone)
    }

    @Test func aTimeFromTheClockReadsBackAsItsSecond() throws {
        let now = Date(timeIntervalSince1970: 1_763_900_000.75)
        let written = Tombstone(reason: .damagedPage, detail: "page 3", wipedAt: now)
        let read = try #require(try Self.writtenAndReadAgain(written))
        #expect(read.wipedAt == Date(timeIntervalSince1970: 1_763_900_000))
        #expect(try Self.writtenAndReadAgain(read) == read)
    }

    @Test(arguments: [
        "yesterday", "2025-11-23", "2025-13-40T99:99:99Z", "", "2050000-01-01T00:00:00Z-11-23T12:13:20Z",
        "2025-11-23T12:13:20Zjunk", "2025-11-23T12:13:20.Z", "2025-11-23T12:13:20.1234567890Z", "2025-11-23 12:13:20Z",
        "+2025-11-23T12:13:20Z", "2025-11-23T12:13:20+0100"
    ])
    func aTimeThatIsNotISO8601IsNoTombstone(time: String) throws {
        let json = #"{"detail":"d","reason":"rollback","version":"0.1.0","wipedAt":"\#(time)"}"#
        #expect(try Self.read(json) == nil)
    }
}
