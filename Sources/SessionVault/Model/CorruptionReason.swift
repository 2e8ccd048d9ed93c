/// Why a store cannot be trusted: a kind from the taxonomy and a detail for people (no secrets).
public struct CorruptionReason: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Which kind of damage (see the taxonomy in `CorruptionKind`).
    public let kind: CorruptionKind
    /// What was found, in words: names files, pages and checks; never a token or a key.
    public let detail: String
    /// The files the damage was found in, when the library diagnosed it (see `DiagnosedFiles`):
    /// `Vault.recover` given this reason wipes only those files. Not part of equality or coding:
    /// two reports of the same damage are the same reason.
    package var diagnosed: DiagnosedFiles?

    package init(_ kind: CorruptionKind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    private enum CodingKeys: String, CodingKey {
        case kind, detail
    }

    public static func == (lhs: CorruptionReason, rhs: CorruptionReason) -> Bool {
        lhs.kind == rhs.kind && lhs.detail == rhs.detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
