import Foundation

extension Vault {
    /// Records an event that changes nothing else (e.g. what the server said to a sign-out) in
    /// the audit log. Never a token: the reason is a short code.
    func recordAudit(_ event: AuditEvent.Kind, reason: String?) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try write("audit") { connection, now in
            try audit(connection, event, sessionID: nil, fingerprint: nil, reason: reason, at: now)
        }
    }

    /// Appends `event` to the audit log inside the caller's transaction.
    func audit(_ connection: Connection, _ event: AuditEvent.Kind, sessionID: String?, fingerprint: Fingerprint?, reason: String?, at time: Date) throws {
        // Capped as a ring (see Migrations/0003): the log is for support, not an archive, and
        // must not grow the file forever.
        try connection.run("""
            INSERT OR REPLACE INTO audit_log (slot, seq, at, event, session_id, fingerprint, reason)
            SELECT (audit_seq + 1) % ?, audit_seq + 1, ?, ?, ?, ?, ? FROM vault_state WHERE singleton = 1
            """, [.integer(Int64(max(policy.auditLogCapacity, 1))), .integer(time.unixMilliseconds), .text(event.code), sessionID.sqlValue,
                  fingerprint.map { .text($0.hex) } ?? .null, reason.sqlValue])
        try connection.run("UPDATE vault_state SET audit_seq = audit_seq + 1 WHERE singleton = 1")
    }
}
