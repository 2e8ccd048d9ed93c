import CSodium

/// The subkeys derived from a root key with `crypto_kdf_derive_from_key` (context "SVdbkey1").
///
/// | id | use |
/// |----|-----|
/// | 1 | SQLCipher page key, handed over in raw-key form `x'<64 hex>'` |
/// | 2 | field key: XChaCha20-Poly1305 seal of each token |
/// | 3 | fingerprint key: keyed BLAKE2b of a token |
/// | 4 | key check: keyed BLAKE2b of a fixed label, stored in the plaintext header |
/// | 5 | integrity: keyed BLAKE2b tags that bind the vault's state to its generation (`StateSeal`), |
/// |   | the header's fields (`VaultHeader`) and the generation kept beside the key (`GenerationWitness`) |
///
/// Separate subkeys mean a leak of one (say, the database key exported for the `sqlcipher`
/// shell) does not open the sealed tokens or forge fingerprints.
package final class VaultKeys: Sendable {
    /// The SQLCipher page key (subkey 1).
    private let databaseKey: SecretBytes
    let fieldKey: SecretBytes
    let fingerprintKey: SecretBytes
    /// Tags what a copy of older files could otherwise bring back unnoticed (see `integrityTag`).
    private let integrityKey: SecretBytes
    /// Public: tells "wrong key" from "damaged file" without touching the database.
    package let keyCheckValue: [UInt8]

    static let context = "SVdbkey1"
    static let keyCheckLabel = Array("SessionVault key check value v1".utf8)

    package init(root: SecretBytes) throws(CryptoError) {
        databaseKey = try Self.derive(1, from: root)
        fieldKey = try Self.derive(2, from: root)
        fingerprintKey = try Self.derive(3, from: root)
        integrityKey = try Self.derive(5, from: root)
        let check = try Self.derive(4, from: root)
        var value = [UInt8](repeating: 0, count: 16)
        check.withBytePointer { key, keyCount in
            _ = crypto_generichash(&value, 16, Self.keyCheckLabel, UInt64(Self.keyCheckLabel.count), key, keyCount)
        }
        keyCheckValue = value
    }

    private static func derive(_ id: UInt64, from root: SecretBytes) throws(CryptoError) -> SecretBytes {
        try SecretBytes(
            count: 32,
            filling: { subkey, count in
                root.withBytePointer { rootBytes, _ in
                    _ = crypto_kdf_derive_from_key(subkey, count, id, context, rootBytes)
                }
            })
    }

    /// A 16-byte keyed BLAKE2b tag of `label` followed by `message`. The label keeps the tags of
    /// different records (state seal, header, generation witness) from standing in for each other.
    func integrityTag(_ label: String, _ message: [UInt8]) -> [UInt8] {
        let input = Array(label.utf8) + [0] + message
        var tag = [UInt8](repeating: 0, count: 16)
        integrityKey.withBytePointer { key, keyCount in
            _ = crypto_generichash(&tag, 16, input, UInt64(input.count), key, keyCount)
        }
        return tag
    }

    /// SQLCipher's raw-key string `x'<64 hex>'` (67 bytes), built fresh in locked memory on each
    /// access and zeroed when the caller lets go of it: the hex form exists only while a
    /// connection is being keyed. No `String` ever holds it.
    var databaseRawKey: SecretBytes {
        get throws(CryptoError) { try Self.rawKeyString(databaseKey) }
    }

    private static func rawKeyString(_ key: SecretBytes) throws(CryptoError) -> SecretBytes {
        try SecretBytes(count: 67) { out in
            guard let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            base[0] = UInt8(ascii: "x")
            base[1] = UInt8(ascii: "'")
            key.withUnsafeBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    base[2 + index * 2] = digits[Int(byte >> 4)]
                    base[3 + index * 2] = digits[Int(byte & 0x0F)]
                }
            }
            base[66] = UInt8(ascii: "'")
        }
    }

    /// The fingerprint of a token: first 8 bytes of BLAKE2b keyed with the fingerprint key.
    func fingerprint(of token: SecretBytes) -> Fingerprint {
        var digest = [UInt8](repeating: 0, count: 8)
        token.withBytePointer { bytes, count in
            fingerprintKey.withBytePointer { key, keyCount in
                _ = crypto_generichash(&digest, 8, bytes, UInt64(count), key, keyCount)
            }
        }
        return Fingerprint(hex: Hex.encode(digest))
    }
}
