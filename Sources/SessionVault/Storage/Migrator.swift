import Foundation

/// Brings a database to the newest embedded schema.
///
/// Each pending migration and its bookkeeping row commit in one transaction, so a crash leaves
/// either the old or the new schema. Before applying anything it checks what is already there:
/// a recorded checksum that differs from the shipped SQL, or a version newer than any shipped
/// that the vault's format marker does not allow this library to read, is refused with a typed
/// error and nothing is changed.
struct Migrator: Sendable {
    let migrations: [Migration]

    init(migrations: [Migration] = EmbeddedMigrations.all) {
        self.migrations = migrations
    }

    var newestVersion: Int { migrations.last?.version ?? 0 }

    /// The bookkeeping rows, oldest first (empty for a new file).
    func applied(in connection: Connection) throws(MigrationError) -> [AppliedMigration] {
        var rows: [(version: Int64, name: String?, checksum: String?, appliedAt: Int64)] = []
        do {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    applied_at INTEGER NOT NULL)
                """)
            let statement = try connection.cached("SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version")
            try statement.bind([])
            defer { statement.reset() }
            while try statement.step() {
                rows.append((statement.int64(0), statement.text(1), statement.text(2), statement.int64(3)))
            }
        } catch {
            throw .sqlite(error)
        }
        return try rows.map { (row) throws(MigrationError) in
            guard let name = row.name, let checksum = row.checksum else { throw .malformedHistory("a row without name or checksum") }
            return AppliedMigration(version: Int(row.version), name: name, checksum: checksum, appliedAt: Date(unixMilliseconds: row.appliedAt))
        }
    }

    /// Checks the recorded history against the shipped migrations without changing anything.
    /// `readableSince` is the vault's format marker (nil when it has none): migrations newer
    /// than any shipped are accepted when the marker says this library can read their vault.
    func validate(_ applied: [AppliedMigration], readableSince: Int?) throws(MigrationError) {
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for row in applied {
            guard let migration = known[row.version] else {
                if row.version > newestVersion {
                    guard let readableSince else { throw .futureSchema(version: row.version, newestKnown: newestVersion) }
                    if readableSince > newestVersion { throw .newerFormat(readableSince: readableSince, newestKnown: newestVersion) }
                    continue
                }
                throw .malformedHistory("unknown migration version \(row.version)")
            }
            guard migration.checksum == row.checksum else {
                throw .checksumMismatch(version: row.version, name: row.name)
            }
        }
    }

    /// The vault's format marker (`vault_format.readable_since`, migration 5), or nil when the
    /// file has none (a history older than the marker, or a damaged one).
    func readableSince(in connection: Connection) throws(MigrationError) -> Int? {
        do {
            let exists = try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'vault_format'") ?? 0
            guard exists > 0 else { return nil }
            return try connection.scalarInt("SELECT readable_since FROM vault_format WHERE singleton = 1").map { Int($0) }
        } catch {
            throw .sqlite(error)
        }
    }

    /// Validates, then applies every pending migration. Returns the versions it applied.
    /// - Parameter completing: runs inside each migration's transaction, after its SQL, with its
    ///   version: for a step SQL cannot do (migration 6 seals the existing state with a key).
    @discardableResult
    func migrate(
        _ connection: Connection, now: Int64, completing: (Int, Connection) throws(MigrationError) -> Void = { _, _ in }
    ) throws(MigrationError) -> [Int] {
        let history = try applied(in: connection)
        let fromNewerLibrary = history.contains { $0.version > newestVersion }
        try validate(history, readableSince: fromNewerLibrary ? try readableSince(in: connection) : nil)
        let done = Set(history.map(\.version))
        if fromNewerLibrary {
            // A newer library's vault that this one may read: it applied every migration this
            // library ships before its own, so nothing is pending; one missing is not that.
            if let missing = migrations.first(where: { !done.contains($0.version) }) {
                throw .malformedHistory("migration \(missing.version) is missing below newer ones")
            }
            return []
        }
        var appliedNow: [Int] = []
        for migration in migrations where !done.contains(migration.version) {
            try connection.transaction { () throws(MigrationError) in
                do throws(SQLiteError) { try connection.execute(migration.sql) } catch { throw .sqlite(error) }
                try completing(migration.version, connection)
                do throws(SQLiteError) {
                    try connection.run(
                        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                        [.integer(Int64(migration.version)), .text(migration.name), .text(migration.checksum), .integer(now)])
                } catch {
                    throw .sqlite(error)
                }
                CrashPoint.migrationUncommitted.reach()
            }
            appliedNow.append(migration.version)
        }
        return appliedNow
    }
}

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
