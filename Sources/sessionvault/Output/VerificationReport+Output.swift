import SessionVault

extension VerificationReport {
    /// `{"intact", "pagesScanned", "findings": [{"kind", "detail", …}], "elapsedSeconds"}`.
    var json: JSONValue {
        .object([
            "intact": .bool(intact),
            "pagesScanned": .int(pagesScanned),
            "findings": .array(findings.map(Self.json)),
            "elapsedSeconds": .double(elapsed)
        ])
    }

    /// One finding; only the report's JSON shows findings this way.
    private static func json(_ finding: VerificationFinding) -> JSONValue {
        .object([
            "kind": .string(finding.kind.rawValue),
            "detail": .string(finding.detail),
            "page": finding.page.map { .int($0) } ?? .null,
            "table": .string(finding.table),
            "sessionID": .string(finding.sessionID)
        ])
    }
}
