import Foundation

/// Left behind by a recovery wipe so the app and the CLI can say why the user must sign in
/// again. Holds a reason and a time, never a secret.
public struct Tombstone: Sendable, Equatable, Codable {
    /// Why the vault was wiped.
    public let reason: CorruptionKind
    /// What was found, in words (no secrets).
    public let detail: String
    /// When the recovery wipe ran.
    public let wipedAt: Date
    /// The SessionVault version that wiped.
    public let version: String

    package init(reason: CorruptionKind, detail: String, wipedAt: Date, version: String = SessionVaultVersion.current) {
        self.reason = reason
        self.detail = detail
        self.wipedAt = wipedAt
        self.version = version
    }

    /// The tombstone at `path`: nil when there is none or it does not decode (it only explains
    /// a past wipe). A path that cannot be read, or is not a regular file (a FIFO would block a
    /// plain read forever), is an error rather than "no tombstone".
    package static func read(at path: String) throws(FileIOError) -> Tombstone? {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path)
        } catch {
            if error.isNotFound { return nil }
            throw error
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(wholeSecondsDate)
        return try? decoder.decode(Tombstone.self, from: Data(bytes))
    }

    /// The tombstone's time as written: ISO 8601 (RFC 3339's shape, a four-digit year), whole
    /// seconds. A time with a fraction (from another writer, or edited by hand) is read down to
    /// its second. Read strictly, because Foundation's own ISO 8601 reading is lenient on Linux
    /// (a fraction kept that its writing drops; a seven-digit year with text after it accepted)
    /// and stricter on Apple platforms: a tombstone that reads must read the same everywhere,
    /// and the same again once this library writes it back (both found by the fuzz harness).
    private static func wholeSecondsDate(_ decoder: any Decoder) throws -> Date {
        let text = try decoder.singleValueContainer().decode(String.self)
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let written = writtenTimeFormatter()
        guard hasInternetDateTimeShape(text), let read = withFraction.date(from: text) ?? written.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an RFC 3339 time"))
        }
        let date = Date(timeIntervalSinceReferenceDate: read.timeIntervalSinceReferenceDate.rounded(.down))
        // Only a time this library can write back as itself (a year past 9999 cannot be).
        guard written.date(from: written.string(from: date)) == date else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a time that cannot be written back"))
        }
        return date
    }

    /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of 1 to 9 digits, then `Z` or `±HH:MM`.
    static func hasInternetDateTimeShape(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func isDigit(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") }
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy(isDigit) }
        func byte(_ index: Int, is character: Unicode.Scalar) -> Bool { index < bytes.count && bytes[index] == UInt8(ascii: character) }
        guard digits(0..<4), byte(4, is: "-"), digits(5..<7), byte(7, is: "-"), digits(8..<10), byte(10, is: "T"),
            digits(11..<13), byte(13, is: ":"), digits(14..<16), byte(16, is: ":"), digits(17..<19)
        else { return false }
        var index = 19
        if byte(index, is: ".") {
            let start = index + 1
            index = start
            while isDigit(index) { index += 1 }
            guard (1...9).contains(index - start) else { return false }
        }
        if byte(index, is: "Z") { return index + 1 == bytes.count }
        guard byte(index, is: "+") || byte(index, is: "-") else { return false }
        return bytes.count == index + 6 && digits(index + 1..<index + 3) && byte(index + 3, is: ":") && digits(index + 4..<index + 6)
    }

    /// The one form a tombstone's time is written in (and read back by).
    private static func writtenTimeFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }

    package func write(to path: String) throws(FileIOError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Self.writtenTimeFormatter().string(from: date))
        }
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        try FileIO.writeAtomically(path, contents: Array(data), mode: 0o600, overwrite: true)
    }
}
