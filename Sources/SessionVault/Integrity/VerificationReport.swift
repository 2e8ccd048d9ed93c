import Foundation

/// The result of a full scan: every page read and every sealed field opened.
public struct VerificationReport: Sendable, Equatable, Codable {
    /// Whether the scan found nothing wrong.
    public var intact: Bool { findings.isEmpty }
    /// How many database pages were read (0 when the vault did not open).
    public package(set) var pagesScanned: Int
    /// What was found, in the order found; empty when intact.
    public package(set) var findings: [VerificationFinding]
    /// Seconds the scan took.
    public package(set) var elapsed: TimeInterval

    package init(pagesScanned: Int, findings: [VerificationFinding], elapsed: TimeInterval) {
        self.pagesScanned = pagesScanned
        self.findings = findings
        self.elapsed = elapsed
    }
}

/// One problem found by a full `verify()` scan.
public struct VerificationFinding: Sendable, Equatable, Codable {
    /// What kind of damage it is.
    public package(set) var kind: CorruptionKind
    /// What was found, in words (names pages, tables and rows; never a token or a key).
    public package(set) var detail: String
    /// The page number, when the problem is tied to a page.
    public package(set) var page: Int?
    /// The table, when known.
    public package(set) var table: String?
    /// The session, when the problem is in a session row.
    public package(set) var sessionID: String?

    package init(kind: CorruptionKind, detail: String, page: Int? = nil, table: String? = nil, sessionID: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.page = page
        self.table = table
        self.sessionID = sessionID
    }

    /// The finding for a reason, which carries only a kind and a text: with the page its text
    /// names (`page 1 records 7 pages`, `page 5 failed authentication`), so the structured form
    /// never says less than the words.
    init(reason: CorruptionReason) {
        self.init(kind: reason.kind, detail: reason.detail, page: PageScanner.pageNumber(in: reason.detail))
    }
}
