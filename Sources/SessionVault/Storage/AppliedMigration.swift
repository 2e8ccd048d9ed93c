import Foundation

/// A row of the migrator's bookkeeping table: one schema migration applied to this vault.
package struct AppliedMigration: Sendable, Equatable, Codable {
    /// The migration's number (`Migrations/NNNN_name.sql`).
    package let version: Int
    /// The migration's name, from its file name.
    package let name: String
    /// The BLAKE2b-256 checksum of the SQL that was applied, in hex.
    package let checksum: String
    /// When it was applied, by the clock of the process that applied it.
    package let appliedAt: Date
}
