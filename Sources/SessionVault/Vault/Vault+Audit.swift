import Foundation

extension Vault {
    /// The latest `limit` audit events, oldest first. The log holds no token, only fingerprints.
    public func auditEvents(limit: Int) throws(VaultError) -> [AuditEvent] {
        guard limit >= 0 else { throw .invalidArgument("limit must not be negative") }
        try reloadIfChangedElsewhere()
        let connection = try liveConnection()
        do {
            return try AuditLog.recent(limit, in: connection)
        } catch {
            throw VaultError(underlying: error, files: files)
        }
    }

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
        try AuditLog.append(
            event, sessionID: sessionID, fingerprint: fingerprint, reason: reason, at: time.unixMilliseconds,
            capacity: Int64(max(policy.auditLogCapacity, 1)), in: connection)
    }
}
