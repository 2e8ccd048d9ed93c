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
