/// Why a store cannot be trusted: a kind from the taxonomy and a detail for people (no secrets).
public struct CorruptionReason: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public let kind: CorruptionKind
    public let detail: String

    package init(_ kind: CorruptionKind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
