import Foundation

/// Everything a support engineer may see about a vault, read in one go by `Vault.inspect()`:
/// engine versions, file sizes, schema history, every session (redacted, tokens only as
/// fingerprints), the state row, the latest audit events and the tombstone. Holds no secret and
/// nothing derived from one except fingerprints.
package struct VaultInspection: Sendable {
    /// Sizes in bytes of the vault's files; nil when a file is absent.
    package struct FileSizes: Sendable, Equatable, Codable {
        /// Size of the database, in bytes.
        package let database: Int64?
        /// Size of the write-ahead log, in bytes.
        package let wal: Int64?
        /// Size of the shared-memory file, in bytes.
        package let sharedMemory: Int64?
        /// Size of the rollback journal, in bytes.
        package let journal: Int64?
        /// Size of the header, in bytes.
        package let header: Int64?
        /// Size of the tombstone, in bytes.
        package let tombstone: Int64?

        /// Reads the sizes now. Needs no key and opens nothing, so it also works on a vault that
        /// cannot be opened.
        package init(files: VaultFiles) {
            database = FileIO.size(files.database)
            wal = FileIO.size(files.wal)
            sharedMemory = FileIO.size(files.sharedMemory)
            journal = FileIO.size(files.journal)
            header = FileIO.size(files.header)
            tombstone = FileIO.size(files.tombstone)
        }
    }

    /// One `sessions` row, redacted, with the resume path it would take at `inspectedAt`.
    package struct SessionEntry: Sendable {
        /// The session, redacted.
        package let session: Session
        /// Whether the state row points at this session.
        package let isCurrent: Bool
        /// `ResumeDecision.decide` for this session at `inspectedAt` under the vault's policy.
        package let path: ResumePath
    }

    /// The `vault_state` row as stored.
    package struct StateRow: Sendable, Equatable {
        /// The current session's id; nil when signed out.
        package let currentSessionID: String?
        /// Grows with every write transaction; the header keeps the last value it saw.
        package let generation: UInt64
        /// The latest wall-clock time the vault has seen (to notice a clock moved back).
        package let lastWallClock: Date
        /// Why there is no current session; nil while a session is current.
        package let emptyReason: MissingReason?
        /// Server minus local time, seconds, as last measured.
        package let serverClockOffset: TimeInterval
        /// The device owner's "unlock with biometrics" preference.
        package let biometricPreference: Bool
    }

    /// What the plaintext header beside the database records (no secrets; the key check value
    /// is left out because it would let a passphrase be guessed offline).
    package struct HeaderSummary: Sendable, Equatable {
        /// The last generation the header saw committed.
        package let generation: UInt64
        /// How the root key is obtained: `.stored` (32 bytes from a key file or keystore) or
        /// `.argon2id` (derived from a passphrase, with the salt and limits the header records;
        /// none of them is secret).
        package let keyDerivation: KeyDerivation
        /// Set while a rekey is swapping in the re-encrypted file.
        package let rekeyPending: Bool
        /// The key the vault names (`KeyProvider.identity`), as far as the header keeps its name;
        /// nil when it records none (a passphrase, or a vault not opened since it was written by
        /// a release before the record).
        package let keyIdentity: String?
    }

    /// `PRAGMA cipher_version`, e.g. `3.4.1`.
    package let cipherVersion: String
    /// The SQLite library under SQLCipher, e.g. `3.15.2`.
    package let sqliteVersion: String
    /// `PRAGMA cipher_page_size` (pinned to 4096).
    package let pageSize: Int
    /// `PRAGMA page_count`.
    package let pageCount: Int
    /// `PRAGMA journal_mode`, e.g. `wal`.
    package let journalMode: String
    /// The sizes of the vault's files.
    package let files: FileSizes
    /// What the header records.
    package let header: HeaderSummary
    /// The newest applied migration version.
    package let schemaVersion: Int
    /// The migrator's bookkeeping rows, oldest first, with their checksums.
    package let migrations: [AppliedMigration]
    /// Every stored session, oldest first (normally at most one).
    package let sessions: [SessionEntry]
    /// The state row.
    package let state: StateRow
    /// The latest audit events, oldest first.
    package let recentEvents: [AuditEvent]
    /// Left by the last recovery wipe, if any.
    package let tombstone: Tombstone?
    /// The time the paths were decided for.
    package let inspectedAt: Date
    /// The SessionVault version that inspected.
    package let libraryVersion: String
}
