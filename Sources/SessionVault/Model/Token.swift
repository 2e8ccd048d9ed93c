/// An access or refresh token. The value lives in locked memory; the token prints only as its
/// fingerprint, `Token(fp:1a2b3c4d5e6f7a8b)`.
public struct Token: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let secret: SecretBytes
    /// Set when the token came from (or went into) a vault; nil for a token just parsed.
    public let fingerprint: Fingerprint?

    init(secret: SecretBytes, fingerprint: Fingerprint?) {
        self.secret = secret
        self.fingerprint = fingerprint
    }

    /// A token received from a server. The string's own storage cannot be zeroed by Swift; keep
    /// it short-lived.
    public init(_ value: String) throws {
        var bytes = Array(value.utf8)
        self.init(secret: try SecretBytes(consuming: &bytes), fingerprint: nil)
    }

    /// Number of bytes in the token.
    public var byteCount: Int { secret.count }

    /// Calls `body` with the token's bytes, for the one place that needs them: the request that
    /// sends the token to its server. Do not let the bytes escape or log them.
    public func withRevealedBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try secret.withUnsafeBytes(body)
    }

    /// Same value, in constant time.
    public func hasSameValue(as other: Token) -> Bool { secret == other.secret }

    public var description: String { "Token(fp:\(fingerprint?.hex ?? "unset"))" }
    public var debugDescription: String { description }
}

/// The only form in which a token is ever shown or logged: the first 8 bytes of a BLAKE2b hash
/// keyed with a vault subkey, as 16 hex digits. Without the vault's key it reveals nothing and
/// cannot be computed from a stolen token.
public struct Fingerprint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// 16 lowercase hex digits: the first 8 bytes of a keyed BLAKE2b hash of the token.
    public let hex: String

    package init(hex: String) { self.hex = hex }

    public var description: String { hex }
}

/// Lower-case hexadecimal text of bytes (checksums, fingerprints, ids; never key material,
/// which is hex-encoded only inside locked memory).
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
