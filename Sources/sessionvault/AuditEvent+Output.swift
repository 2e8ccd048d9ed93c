import SessionVault

extension AuditEvent {
    var json: JSONValue {
        .object([
            "id": .int(id),
            "at": .time(at),
            "event": .string(event),
            "sessionID": .string(sessionID),
            "fingerprint": .string(fingerprint?.hex),
            "reason": .string(reason),
        ])
    }

    /// A table of events with a header row.
    static func table(_ events: [AuditEvent], indent: Int = 0) -> TextTable {
        var table = TextTable(indent: indent)
        table.add(TextTable.Cell("TIME", .bold), TextTable.Cell("EVENT", .bold), TextTable.Cell("SESSION", .bold),
                  TextTable.Cell("FINGERPRINT", .bold), TextTable.Cell("REASON", .bold))
        for event in events {
            table.add(TextTable.Cell(TimeFormat.iso(event.at)), TextTable.Cell(event.event, .cyan),
                      TextTable.Cell(event.sessionID.map { String($0.prefix(12)) } ?? "-"),
                      TextTable.Cell(event.fingerprint?.hex ?? "-"), TextTable.Cell(event.reason ?? "-"))
        }
        return table
    }
}
