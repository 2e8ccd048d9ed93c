/// Why a store cannot be trusted: a kind from the taxonomy and a detail for people (no secrets).
public struct CorruptionReason: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Which kind of damage (see the taxonomy in `CorruptionKind`).
    public let kind: CorruptionKind
    /// What was found, in words: names files, pages and checks; never a token or a key.
    public let detail: String
    /// The files the damage was found in, when the library diagnosed it (see `DiagnosedFiles`):
    /// `Vault.recover` given this reason wipes only those files. Not part of equality or coding:
    /// two reports of the same damage are the same reason.
    package var diagnosed: DiagnosedFiles?

    package init(_ kind: CorruptionKind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey {
        case kind, detail
    }

    public static func == (lhs: CorruptionReason, rhs: CorruptionReason) -> Bool {
        lhs.kind == rhs.kind && lhs.detail == rhs.detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}

/// Every way the store can be found untrustworthy (the corruption taxonomy).
public enum CorruptionKind: String, Sendable, Codable, CaseIterable {
    /// A database exists but its key is gone (e.g. a backup restored without the device key).
    case keyMissing
    /// The key does not match the key check value in the header.
    case wrongKey
    /// The file is not a database, or a page failed SQLCipher's HMAC (SQLITE_NOTADB).
    case notADatabase
    /// The file is empty or shorter than its pages.
    case truncated
    /// A page failed to read during a full scan.
    case damagedPage
    /// `PRAGMA integrity_check` found structural damage.
    case structuralDamage
    /// A recorded migration differs from the SQL this library ships.
    case migrationChecksumMismatch
    /// Migrations newer than this library knows, without the format marker every library that
    /// writes a newer schema records: an untrusted history (recovery wipes it). A newer vault
    /// with its marker is not damage: readable, or `VaultError.newerFormat` and set aside.
    case futureSchema
    /// A sealed token failed to open (altered, or moved to another row or column).
    case recordAuthenticationFailed
    /// Stored values contradict each other (refresh expiry before issue, a dangling current session).
    case invariantViolation
    /// The database is older than the header's generation: an older copy was put back.
    case rollback
    /// The write-ahead log is damaged.
    case damagedWAL
    /// The plaintext header beside the database is missing or unreadable.
    case headerDamaged
}
