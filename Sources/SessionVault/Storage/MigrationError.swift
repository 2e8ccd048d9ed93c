/// Why the migrator refused a database.
enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file records a migration whose SQL differs from the one this library ships.
    case checksumMismatch(version: Int, name: String)
    /// The file records migrations this library does not know and no format marker that says
    /// whether it may read them (every library that writes a newer schema records one).
    case futureSchema(version: Int, newestKnown: Int)
    /// The file was written by a newer SessionVault whose format marker says a library needs to
    /// know at least migration `readableSince` to read it: incompatible, not damaged.
    case newerFormat(readableSince: Int, newestKnown: Int)
    /// The bookkeeping table is unreadable or has rows that make no sense.
    case malformedHistory(String)
    /// The database failed while migrating.
    case sqlite(SQLiteError)
    /// A migration's step in Swift (after its SQL) found the file unable to take it; the
    /// migration was rolled back.
    case completionFailed(version: Int, detail: String)

    public var description: String {
        switch self {
        case .checksumMismatch(let version, let name):
            return "migration \(version) (\(name)) was applied from different SQL than this library ships (checksum mismatch)"
        case .futureSchema(let version, let newestKnown):
            return "schema version \(version) is newer than this library knows (\(newestKnown))"
        case .newerFormat(let readableSince, let newestKnown):
            return "the vault's format is readable by schema \(readableSince) and later; this library knows \(newestKnown)"
        case .malformedHistory(let detail):
            return "migration history is malformed: \(detail)"
        case .sqlite(let error):
            return "migration failed: \(error)"
        case .completionFailed(let version, let detail):
            return "migration \(version) could not be completed: \(detail)"
        }
    }
}

extension MigrationError: SQLiteFailureCarrying {
    init(sqliteFailure failure: SQLiteError) { self = .sqlite(failure) }
}
