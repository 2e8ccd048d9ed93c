import SessionVault

extension AuditEvent {
    var json: JSONValue {
        .object([
            "id": .int(id),
            "at": .string(TimeFormat.iso(at)),
            "event": .string(kind.code),
            "sessionID": .string(sessionID),
            "fingerprint": .string(fingerprint?.hex),
            "reason": .string(reason)
        ])
    }

    /// A table of events with a header row. Times are in the one fixed-width form (see
    /// `TimeFormat`), so the column sorts as text; the session is shown whole, to be matched
    /// with server logs.
    static func table(_ events: [AuditEvent], indent: Int = 0) -> TextTable {
        var table = TextTable(indent: indent)
        table.add(
            TextTable.Cell("TIME", .bold), TextTable.Cell("EVENT", .bold), TextTable.Cell("SESSION", .bold),
            TextTable.Cell("FINGERPRINT", .bold), TextTable.Cell("REASON", .bold))
        for event in events {
            table.add(
                TextTable.Cell(TimeFormat.iso(event.at)), TextTable.Cell(event.kind.code, .cyan),
                TextTable.Cell(event.sessionID ?? "-"),
                TextTable.Cell(event.fingerprint?.hex ?? "-"), TextTable.Cell(event.reason ?? "-"))
        }
        return table
    }
}
