import CSodiumBench

/// The vault's subkeys, derived here the same way the library derives them (libsodium
/// `crypto_kdf_derive_from_key`, context "SVdbkey1": 1 database, 2 field, 3 fingerprint).
///
/// The library keeps them internal; the fixtures need them to write extra session rows through a
/// raw keyed connection, sealed and fingerprinted exactly as the library would, so that opening
/// and verifying a 10,000-session vault does real work on valid rows. Benchmark-only key
/// material: it is never printed.
package struct BenchKeys: Sendable {
    package let root: [UInt8]
    /// SQLCipher's raw-key form `x'<64 hex>'` (67 bytes): no PBKDF2.
    package let databaseRawKey: [UInt8]
    package let fieldKey: [UInt8]
    package let fingerprintKey: [UInt8]

    package init(root: [UInt8]) {
        precondition(sodium_init() >= 0, "libsodium failed to initialize")
        self.root = root
        let database = Self.derive(1, from: root)
        let digits = Array("0123456789abcdef".utf8)
        var raw: [UInt8] = [UInt8(ascii: "x"), UInt8(ascii: "'")]
        for byte in database {
            raw.append(digits[Int(byte >> 4)])
            raw.append(digits[Int(byte & 0x0F)])
        }
        raw.append(UInt8(ascii: "'"))
        databaseRawKey = raw
        fieldKey = Self.derive(2, from: root)
        fingerprintKey = Self.derive(3, from: root)
    }

    /// A fresh random root key.
    package static func random() -> BenchKeys {
        precondition(sodium_init() >= 0, "libsodium failed to initialize")
        var root = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&root, 32)
        return BenchKeys(root: root)
    }

    private static func derive(_ id: UInt64, from root: [UInt8]) -> [UInt8] {
        var subkey = [UInt8](repeating: 0, count: 32)
        _ = crypto_kdf_derive_from_key(&subkey, 32, id, "SVdbkey1", root)
        return subkey
    }

    /// XChaCha20-Poly1305 seal in the library's field format: version byte 1, nonce, ciphertext+tag;
    /// associated data binds the seal to its row, column and token version.
    package func seal(_ plaintext: [UInt8], sessionID: String, column: String, tokenVersion: Int64) -> [UInt8] {
        let associatedData = Array("sessionvault/v1|\(sessionID)|\(column)|\(tokenVersion)".utf8)
        let nonceSize = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        var nonce = [UInt8](repeating: 0, count: nonceSize)
        randombytes_buf(&nonce, nonceSize)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES))
        var written: UInt64 = 0
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            &ciphertext, &written, plaintext, UInt64(plaintext.count),
            associatedData, UInt64(associatedData.count), nil, nonce, fieldKey)
        return [1] + nonce + ciphertext
    }

    /// The library's token fingerprint: first 8 bytes of BLAKE2b keyed with the fingerprint key, hex.
    package func fingerprint(_ token: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 8)
        _ = crypto_generichash(&digest, 8, token, UInt64(token.count), fingerprintKey, fingerprintKey.count)
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
