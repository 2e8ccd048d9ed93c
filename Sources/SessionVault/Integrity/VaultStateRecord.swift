import Foundation

/// The `vault_state` row (Migrations/0002, 0006, 0007): the vault's one state row
/// (`singleton = 1`), as stored.
///
/// The one owner of the table's columns (`Column`) and of every statement that reads or writes
/// it, as `SessionRecord` is for `sessions`: the state seal takes its column positions from here
/// (`StateSeal.stateColumns`), so a column list kept by hand elsewhere cannot drift from the one
/// the load reads. `VaultState` is what the vault makes of this row and the current session.
struct VaultStateRecord {
    var currentSessionID: String?
    var generation: Int64
    /// Milliseconds since 1970: the latest wall-clock time a write saw.
    var lastWallClock: Int64
    /// A `MissingReason` code; empty while a session is current.
    var emptyReason: String
    /// Milliseconds: server minus local time.
    var serverClockOffset: Int64
    var biometricPreference: Bool
    /// Tells this vault from a later one at the same path (migration 6).
    var vaultID: [UInt8]?
    /// The state seal's stored tag (`StateSeal`, migration 6).
    var stateMAC: [UInt8]?
    /// Milliseconds since 1970 before which no refresh is sent; 0: none (migration 7).
    var refreshNotBefore: Int64
    /// Milliseconds: the wait the server asked for with that record; 0: unknown (migration 9).
    var refreshDeferredFor: Int64

    static let table = "vault_state"

    /// The columns of `vault_state`, each named once, in the order `selectList` selects them.
    enum Column: String, CaseIterable {
        case currentSessionID = "current_session_id"
        case generation
        case lastWallClock = "last_wall_clock"
        case emptyReason = "empty_reason"
        case serverClockOffset = "server_clock_offset"
        case biometricPreference = "biometric_preference"
        /// Migration 0006: the vault's id and the state seal.
        case vaultID = "vault_id"
        case stateMAC = "state_mac"
        /// Migration 0007: a server's 429, kept for every process.
        case refreshNotBefore = "refresh_not_before"
        /// Migration 0009: the wait that 429 asked for.
        case refreshDeferredFor = "refresh_deferred_for"
        /// The audit log's ring position (see `AuditLog`).
        case auditSeq = "audit_seq"

        /// Where the column sits in a row selected with `VaultStateRecord.selectList`.
        var position: Int32 { Self.positions[self] ?? -1 }

        private static let positions: [Column: Int32] =
            Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($0.element, Int32($0.offset)) })
    }

    /// Every column, for `SELECT \(selectList) FROM vault_state`.
    static let selectList = Column.allCases.map(\.rawValue).joined(separator: ", ")

    private static let selectRow = "SELECT \(selectList) FROM vault_state WHERE singleton = 1"

    /// The current session's id, as a subquery for statements on other tables.
    static let selectCurrentSessionID = "SELECT current_session_id FROM vault_state WHERE singleton = 1"

    /// Reads the row; nil when it is missing. The stored bytes of the columns the state seal
    /// covers are appended to `sealed`, in `StateSeal.stateColumns` order, from the same step.
    static func read(from connection: Connection, sealing sealed: inout StateSeal.Message) throws(SQLiteError) -> VaultStateRecord? {
        let row = try connection.cached(selectRow)
        try row.bind([])
        defer { row.reset() }
        guard try row.step() else { return nil }
        for column in StateSeal.stateColumnPositions { row.withRawColumn(column) { sealed.append($0) } }
        return VaultStateRecord(
            currentSessionID: row.text(Column.currentSessionID.position), generation: row.int64(Column.generation.position),
            lastWallClock: row.int64(Column.lastWallClock.position), emptyReason: row.text(Column.emptyReason.position) ?? "",
            serverClockOffset: row.int64(Column.serverClockOffset.position),
            biometricPreference: row.int64(Column.biometricPreference.position) != 0,
            vaultID: row.blob(Column.vaultID.position), stateMAC: row.blob(Column.stateMAC.position),
            refreshNotBefore: row.int64(Column.refreshNotBefore.position),
            refreshDeferredFor: row.int64(Column.refreshDeferredFor.position))
    }

    // MARK: - Reads of one column

    /// The current session's id as committed (nil: none).
    static func currentSessionID(in connection: Connection) throws(SQLiteError) -> String? {
        try connection.scalarText(selectCurrentSessionID)
    }

    /// The generation as committed in `connection`'s main database.
    static func generation(in connection: Connection) throws(SQLiteError) -> Int64? {
        try connection.scalarInt("SELECT generation FROM vault_state WHERE singleton = 1")
    }

    // MARK: - Writes, each inside the caller's transaction

    /// Steps the generation (every durable write does) and raises the latest wall-clock time seen.
    static func advanceGeneration(lastWallClock now: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            "UPDATE vault_state SET generation = generation + 1, last_wall_clock = max(last_wall_clock, ?) WHERE singleton = 1",
            [.integer(now)])
    }

    /// Sets the generation of `schema`'s copy (a rekey's re-encrypted copy).
    static func setGeneration(_ generation: Int64, schema: String, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE \(schema).vault_state SET generation = ? WHERE singleton = 1", [.integer(generation)])
    }

    /// Makes `sessionID` current, with the device's biometric preference and the server clock offset.
    static func setCurrentSession(
        _ sessionID: String, biometricPreference: Bool, serverClockOffset: Int64,
        in connection: Connection
    ) throws(SQLiteError) {
        try connection.run(
            """
            UPDATE vault_state SET current_session_id = ?, empty_reason = '', biometric_preference = ?,
                server_clock_offset = ? WHERE singleton = 1
            """, [.text(sessionID), .integer(biometricPreference ? 1 : 0), .integer(serverClockOffset)])
    }

    /// Leaves no session current, for `reason`, only while `sessionID` (nil: none) is still the
    /// current one; returns whether it was.
    static func clearCurrentSession(ifStill sessionID: String?, reason: String, in connection: Connection) throws(SQLiteError) -> Bool {
        try connection.run(
            "UPDATE vault_state SET current_session_id = NULL, empty_reason = ? WHERE singleton = 1 AND current_session_id IS ?",
            [.text(reason), sessionID.sqlValue])
        return connection.changes != 0
    }

    /// Records why the vault holds no session (a `MissingReason` code).
    static func setEmptyReason(_ reason: String, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET empty_reason = ? WHERE singleton = 1", [.text(reason)])
    }

    static func setBiometricPreference(_ enabled: Bool, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET biometric_preference = ? WHERE singleton = 1", [.integer(enabled ? 1 : 0)])
    }

    /// Milliseconds: server minus local time.
    static func setServerClockOffset(_ offset: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET server_clock_offset = ? WHERE singleton = 1", [.integer(offset)])
    }

    /// Makes `time` the latest wall-clock time seen, even when it is earlier (a re-anchor), and
    /// carries a recorded 429 over to it: what was left of the wait, counted from the latest
    /// time seen before, is left from `time` (counted from a clock set back, the wait would
    /// have stretched by as much as the clock moved). A wait already over is dropped. The
    /// right-hand sides read the row as it was before this statement.
    static func reanchorWallClock(to time: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            """
            UPDATE vault_state SET
                refresh_not_before = CASE WHEN refresh_not_before > last_wall_clock THEN ? + (refresh_not_before - last_wall_clock) ELSE 0 END,
                last_wall_clock = ?
            WHERE singleton = 1
            """, [.integer(time), .integer(time)])
    }

    /// Raises the latest wall-clock time seen to `time`; never lowers it.
    static func raiseLastWallClock(to time: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET last_wall_clock = max(last_wall_clock, ?) WHERE singleton = 1", [.integer(time)])
    }

    /// No refresh before `time`, a wait of `wait` ms the server asked for; a later time already
    /// recorded stays, with its own wait. The right-hand sides read the row as it was.
    static func deferRefreshes(until time: Int64, wait: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            """
            UPDATE vault_state SET
                refresh_deferred_for = CASE WHEN ? >= refresh_not_before THEN ? ELSE refresh_deferred_for END,
                refresh_not_before = max(refresh_not_before, ?)
            WHERE singleton = 1
            """, [.integer(time), .integer(wait), .integer(time)])
    }

    /// Sets the recorded wait's end to `time` (a wait counted again from a clock that moved back).
    static func moveRefreshDeferral(to time: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET refresh_not_before = ? WHERE singleton = 1 AND refresh_not_before <> 0", [.integer(time)])
    }

    /// Drops a recorded 429 (the server answered, or a new session starts afresh); writes
    /// nothing when none is recorded.
    static func clearRefreshDeferral(in connection: Connection) throws(SQLiteError) {
        try connection.run(
            "UPDATE vault_state SET refresh_not_before = 0, refresh_deferred_for = 0 WHERE singleton = 1 AND refresh_not_before <> 0")
    }

    /// Steps the audit log's ring position, after `AuditLog.append` wrote at the next one.
    static func advanceAuditSequence(in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE vault_state SET audit_seq = audit_seq + 1 WHERE singleton = 1")
    }

    /// Gives `schema`'s vault its id, unless it has one.
    static func assignVaultID(_ id: [UInt8], schema: String, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE \(schema).vault_state SET vault_id = ? WHERE singleton = 1 AND vault_id IS NULL", [.blob(id)])
    }

    /// Stores the state seal's tag in `schema`.
    static func setStateMAC(_ tag: [UInt8], schema: String, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE \(schema).vault_state SET state_mac = ? WHERE singleton = 1", [.blob(tag)])
    }
}
