import SessionVault

extension VerificationFinding {
    var json: JSONValue {
        .object([
            "kind": .string(kind.rawValue),
            "detail": .string(detail),
            "page": page.map { .int($0) } ?? .null,
            "table": .string(table),
            "sessionID": .string(sessionID),
        ])
    }
}
