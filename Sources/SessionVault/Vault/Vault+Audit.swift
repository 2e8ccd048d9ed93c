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
        try AuditLog.append(event, sessionID: sessionID, fingerprint: fingerprint, reason: reason, at: time.unixMilliseconds,
                            capacity: Int64(max(policy.auditLogCapacity, 1)), in: connection)
    }
}
