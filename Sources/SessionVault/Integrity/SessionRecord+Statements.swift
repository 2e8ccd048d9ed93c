import Foundation

extension SessionRecord {
    /// Every row of `schema`'s sessions table, read and checked (`init(reading:)`); by issue
    /// time (then id) when `orderedByIssue`, otherwise in the table's order.
    static func all(in connection: Connection, schema: String = "main", orderedByIssue: Bool = false) throws -> [SessionRecord] {
        let order = orderedByIssue ? " ORDER BY issued_at, id" : ""
        let statement = try connection.prepare("SELECT \(selectList) FROM \(schema).sessions\(order)")
        try statement.bind([])
        var records: [SessionRecord] = []
        while try statement.step() { records.append(try SessionRecord(reading: statement)) }
        statement.reset()
        return records
    }

    /// The token version of session `id` as committed; nil when the row is gone.
    static func tokenVersion(of id: String, in connection: Connection) throws(SQLiteError) -> Int64? {
        let row = try connection.cached("SELECT token_version FROM sessions WHERE id = ?")
        try row.bind([.text(id)])
        defer { row.reset() }
        return try row.step() ? row.int64(0) : nil
    }

    /// `update`, only while this record's row is the vault's current session at token version
    /// `version` (a compare-and-swap inside the caller's transaction).
    func updateIfCurrent(_ columns: [Column], atVersion version: Int64, in connection: Connection) throws(SQLiteError) -> Bool {
        try update(columns, in: connection, where: "token_version = ? AND id = (\(VaultStateRecord.selectCurrentSessionID))", [.integer(version)])
    }

    /// Deletes session `id` and its refresh lease (Migrations/0004: a lease belongs to its session).
    static func delete(id: String, in connection: Connection) throws(SQLiteError) {
        try deleteLease(of: id, in: connection)
        try connection.run("DELETE FROM sessions WHERE id = ?", [.text(id)])
    }

    /// Ends session `id`'s refresh lease: the refresh it covered is over.
    static func deleteLease(of id: String, in connection: Connection) throws(SQLiteError) {
        try connection.run("DELETE FROM refresh_lease WHERE session_id = ?", [.text(id)])
    }

    /// Raises session `id`'s last activity to `time` (milliseconds); never lowers it.
    static func raiseLastActive(of id: String, to time: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE sessions SET last_active_at = max(last_active_at, ?) WHERE id = ?", [.integer(time), .text(id)])
    }

    /// Brings session `id`'s last activity back to `time` (milliseconds) when it is later.
    static func lowerLastActive(of id: String, to time: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("UPDATE sessions SET last_active_at = min(last_active_at, ?) WHERE id = ?", [.integer(time), .text(id)])
    }

    /// Biometric unlock for session `id`, with the enrolment state it was enabled under.
    static func setBiometric(of id: String, enabled: Bool, domainState: [UInt8]?, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            "UPDATE sessions SET biometric_enabled = ?, biometric_domain_state = ? WHERE id = ?",
            [.integer(enabled ? 1 : 0), enabled ? domainState.sqlValue : .null, .text(id)])
    }

    /// The delegated subject of session `id`, with the server's value that validated it.
    static func setActiveSubject(of id: String, to subject: String?, proof: String, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            "UPDATE sessions SET active_subject = ?, active_subject_proof = ? WHERE id = ?",
            [subject.sqlValue, .text(proof), .text(id)])
    }

    // MARK: - The refresh-pending mark and the space its rotation needs

    /// Marks a refresh of session `id` at `version` as pending since `time` (an earlier mark
    /// stays), only while it is the current session; returns whether it was.
    static func markRefreshPending(of id: String, atVersion version: Int64, since time: Int64, in connection: Connection) throws(SQLiteError) -> Bool {
        try connection.run(
            """
            UPDATE sessions SET refresh_pending_since = coalesce(refresh_pending_since, ?)
            WHERE id = ? AND token_version = ? AND id = (\(VaultStateRecord.selectCurrentSessionID))
            """, [.integer(time), .text(id), .integer(version)])
        return connection.changes == 1
    }

    /// Records that the server refused session `id`'s refresh at `version` without a verdict on
    /// the grant: the first such refusal's time stays; the pending mark goes unless `keepPending`
    /// (a mark a holder that died left: the token may be spent). Returns whether the row was
    /// still at `version`.
    static func recordRefreshRefused(
        of id: String, atVersion version: Int64, at time: Int64, keepPending: Bool, in connection: Connection
    ) throws(SQLiteError) -> Bool {
        try connection.run(
            """
            UPDATE sessions SET refresh_refused_since = coalesce(refresh_refused_since, ?),
                refresh_pending_since = CASE WHEN ? THEN refresh_pending_since ELSE NULL END
            WHERE id = ? AND token_version = ?
            """, [.integer(time), .integer(keepPending ? 1 : 0), .text(id), .integer(version)])
        return connection.changes == 1
    }

    /// Clears session `id`'s pending mark, if it is still at `version`.
    static func clearRefreshPending(of id: String, atVersion version: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run(
            "UPDATE sessions SET refresh_pending_since = NULL WHERE id = ? AND token_version = ?",
            [.text(id), .integer(version)])
    }

    /// Holds `bytes` of file space for the rotation a pending refresh will write
    /// (Migrations/0007's `refresh_reserve`, one row of zeros).
    static func reserveRotationSpace(_ bytes: Int64, in connection: Connection) throws(SQLiteError) {
        try connection.run("INSERT OR REPLACE INTO refresh_reserve (singleton, reserve) VALUES (1, zeroblob(?))", [.integer(bytes)])
    }

    /// Gives the reserved space back to the free list.
    static func releaseRotationSpace(in connection: Connection) throws(SQLiteError) {
        try connection.run("DELETE FROM refresh_reserve")
    }
}
