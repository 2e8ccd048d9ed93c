import SessionVault

extension Tombstone {
    var json: JSONValue {
        .object([
            "reason": .string(reason.rawValue),
            "detail": .string(detail),
            "wipedAt": .time(wipedAt),
            "version": .string(version)
        ])
    }

    /// `notADatabase at 2026-01-01T09:00:00.000Z: <detail>`.
    var summary: String { "\(reason.rawValue) at \(TimeFormat.iso(wipedAt)): \(detail)" }
}
