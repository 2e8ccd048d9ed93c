import CSodium

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
