/// Why a store cannot be trusted: a kind from the taxonomy and a detail for people (no secrets).
public struct CorruptionReason: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Which kind of damage (see the taxonomy in `CorruptionKind`).
    public let kind: CorruptionKind
    /// What was found, in words: names files, pages and checks; never a token or a key.
    public let detail: String

    package init(_ kind: CorruptionKind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
