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

    /// The tombstone's time as written: ISO 8601, whole seconds. A time with a fraction (from
    /// another writer, or edited by hand) is read down to its second. Foundation's `.iso8601`
    /// reading accepts a fraction on Linux, and its writing drops it, so a tombstone read and
    /// written back read as a different time (found by the fuzz harness); on Apple platforms
    /// the same strategy refuses the fraction, so one file read differently per platform.
    private static func wholeSecondsDate(_ decoder: any Decoder) throws -> Date {
        let text = try decoder.singleValueContainer().decode(String.self)
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        guard let date = withFraction.date(from: text) ?? plain.date(from: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 time"))
        }
        return Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
    }

    package func write(to path: String) throws(FileIOError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data("{}".utf8)
        try FileIO.writeAtomically(path, contents: Array(data), mode: 0o600, overwrite: true)
    }
}
