import CSodium

/// Makes sure `sodium_init` ran once before any primitive is used.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() throws(CryptoError) {
        guard initialized else { throw .initializationFailed }
    }

    /// Fresh random bytes from libsodium's CSPRNG (not secret-grade storage: use SecretBytes).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Whether two tags are equal, in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.count == rhs.count && sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}

/// SHA-256 (libsodium's `crypto_hash_sha256`) for the CLI's chain-of-custody record: the digest
/// investigators compare with their own `sha256sum` of the evidence files.
package enum SHA256Digest {
    /// The lower-case hex SHA-256 of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        _ = try? Sodium.ensureInitialized()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }
}
