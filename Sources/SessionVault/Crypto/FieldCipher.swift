import CSodium

/// XChaCha20-Poly1305 (IETF) seal of one field.
///
/// Layout: format byte 0x01, 24-byte random nonce, ciphertext with its 16-byte tag. The
/// associated data binds the seal to where it is stored (session id, column, token version), so
/// a seal copied into another row or column does not open.
enum FieldCipher {
    static let formatVersion: UInt8 = 1
    static let nonceSize = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagSize = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    static func seal(_ plaintext: SecretBytes, key: SecretBytes, associatedData: [UInt8]) -> [UInt8] {
        let nonce = Sodium.randomBytes(nonceSize)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + tagSize)
        plaintext.withBytePointer { message, messageCount in
            key.withBytePointer { keyBytes, _ in
                var written: UInt64 = 0
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &ciphertext, &written, message, UInt64(messageCount),
                    associatedData, UInt64(associatedData.count), nil, nonce, keyBytes)
            }
        }
        return [formatVersion] + nonce + ciphertext
    }

    /// Opens a seal into locked memory; throws if it was altered, moved or sealed under another key.
    static func open(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) throws(CryptoError) -> SecretBytes {
        guard sealed.count >= 1 + nonceSize + tagSize, sealed[0] == formatVersion else { throw .malformedCiphertext }
        let ciphertextCount = sealed.count - 1 - nonceSize
        return try SecretBytes(
            count: ciphertextCount - tagSize,
            filling: { (out, _) throws(CryptoError) in
                // Pointers into the sealed bytes: no copies of the nonce or the ciphertext.
                let rc = sealed.withUnsafeBufferPointer { input -> Int32 in
                    guard let base = input.baseAddress else { return -1 }
                    return key.withBytePointer { keyBytes, _ in
                        crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out, nil, nil, base + 1 + nonceSize, UInt64(ciphertextCount),
                            associatedData, UInt64(associatedData.count), base + 1, keyBytes)
                    }
                }
                if rc != 0 { throw CryptoError.authenticationFailed }
            })
    }
}
