/// A row of the migrator's bookkeeping table.
public struct AppliedMigration: Sendable, Equatable, Codable {
    public let version: Int
    public let name: String
    public let checksum: String
    /// Unix milliseconds.
    public let appliedAt: Int64
}
