/// A 32-byte root key and how it was obtained.
public struct RootKey: Sendable {
    /// The key bytes, in locked memory.
    public let bytes: SecretBytes
    /// Recorded in the vault header so the same key can be derived again.
    public let derivation: KeyDerivation

    /// A key a custom `KeyProvider` hands out: exactly `byteCount` bytes, in locked memory.
    public init(bytes: SecretBytes, derivation: KeyDerivation = .stored) {
        self.bytes = bytes
        self.derivation = derivation
    }

    /// Root keys are exactly this long (libsodium's crypto_kdf key size).
    public static let byteCount = 32
}
