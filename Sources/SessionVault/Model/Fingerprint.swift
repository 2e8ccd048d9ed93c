/// The only form in which a token is ever shown or logged: the first 8 bytes of a BLAKE2b hash
/// keyed with a vault subkey, as 16 hex digits. Without the vault's key it reveals nothing and
/// cannot be computed from a stolen token.
public struct Fingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 16 lowercase hex digits: the first 8 bytes of a keyed BLAKE2b hash of the token.
    public let hex: String

    package init(hex: String) { self.hex = hex }

    public var description: String { hex }
}
