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
}
