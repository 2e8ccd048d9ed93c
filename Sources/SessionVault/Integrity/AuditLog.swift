import Foundation

/// The `audit_log` table (Migrations/0003): the one owner of its statements. A ring of
/// `capacity` slots, for support rather than an archive, so that it never grows the file forever;
/// its position is `vault_state.audit_seq`.
enum AuditLog {
    static let table = "audit_log"

    /// Appends an event inside the caller's transaction, over the oldest slot once the ring is full.
    static func append(
        _ event: AuditEvent.Kind, sessionID: String?, fingerprint: Fingerprint?, reason: String?, at time: Int64,
        capacity: Int64, in connection: Connection
    ) throws(SQLiteError) {
        try connection.run(
            """
            INSERT OR REPLACE INTO audit_log (slot, seq, at, event, session_id, fingerprint, reason)
            SELECT (audit_seq + 1) % ?, audit_seq + 1, ?, ?, ?, ?, ? FROM vault_state WHERE singleton = 1
            """,
            [
                .integer(capacity), .integer(time), .text(event.code), sessionID.sqlValue,
                fingerprint.map { .text($0.hex) } ?? .null, reason.sqlValue
            ])
        try VaultStateRecord.advanceAuditSequence(in: connection)
    }

    /// The latest `limit` events, oldest first.
    static func recent(_ limit: Int, in connection: Connection) throws -> [AuditEvent] {
        let statement = try connection.cached(
            """
            SELECT seq, at, event, session_id, fingerprint, reason
            FROM (SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?) ORDER BY seq
            """)
        try statement.bind([.integer(Int64(limit))])
        defer { statement.reset() }
        var events: [AuditEvent] = []
        while try statement.step() {
            guard let event = statement.text(2) else {
                throw CorruptionReason(.invariantViolation, "audit log row \(statement.int64(0)) has no event")
            }
            events.append(
                AuditEvent(
                    id: statement.int64(0), at: Date(unixMilliseconds: statement.int64(1)), kind: AuditEvent.Kind(code: event),
                    sessionID: statement.text(3), fingerprint: statement.text(4).map(Fingerprint.init(hex:)),
                    reason: statement.text(5)))
        }
        return events
    }
}
