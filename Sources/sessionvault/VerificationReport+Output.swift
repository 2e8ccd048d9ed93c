import SessionVault

extension VerificationReport {
    /// `{"intact", "pagesScanned", "findings": [{"kind", "detail", …}], "elapsedSeconds"}`.
    var json: JSONValue {
        .object([
            "intact": .bool(intact),
            "pagesScanned": .int(pagesScanned),
            "findings": .array(findings.map(\.json)),
            "elapsedSeconds": .double(elapsed),
        ])
    }
}
