import CSodium

/// RFC 7636 proof key for code exchange, S256 only, from libsodium's random source.
enum PKCE {
    /// 48 random bytes make 64 characters of base64url: inside RFC 7636's 43–128, all of them
    /// from its unreserved set (`A-Z a-z 0-9 - _`), 384 bits of entropy.
    static let verifierRandomBytes = 48

    /// A fresh code verifier, made and kept in locked memory: random bytes straight into a
    /// locked buffer, base64url-encoded into another one.
    static func makeVerifier() throws(CryptoError) -> SecretBytes {
        try Sodium.ensureInitialized()
        let random = try SecretBytes.random(count: verifierRandomBytes)
        defer { random.zero() }
        return try random.withBytePointer { (source, count) throws(CryptoError) in
            try SecretBytes(count: encodedLength(count)) { target, length in
                encode(UnsafeBufferPointer(start: source, count: count), into: UnsafeMutableBufferPointer(start: target, count: length))
            }
        }
    }

    /// `BASE64URL(SHA256(verifier))`, the `code_challenge` (RFC 7636 §4.2): public, it goes in
    /// the authorization URL.
    static func challenge(for verifier: SecretBytes) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        verifier.withBytePointer { pointer, count in
            _ = crypto_hash_sha256(&digest, pointer, UInt64(count))
        }
        return base64URL(digest)
    }

    /// A fresh random value for `state` or `nonce`: 16 bytes (128 bits), base64url.
    static func randomToken() -> String {
        base64URL(Sodium.randomBytes(16))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: encodedLength(bytes.count))
        bytes.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in encode(source, into: target) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unpadded base64url length of `count` bytes.
    static func encodedLength(_ count: Int) -> Int { count / 3 * 4 + [0, 2, 3][count % 3] }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Unpadded base64url of `source` into `target` (exactly `encodedLength(source.count)`).
    private static func encode(_ source: UnsafeBufferPointer<UInt8>, into target: UnsafeMutableBufferPointer<UInt8>) {
        var out = 0
        var index = 0
        while index < source.count {
            let remaining = source.count - index
            let b0 = UInt32(source[index])
            let b1 = remaining > 1 ? UInt32(source[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(source[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            let characters = remaining >= 3 ? 4 : remaining + 1
            for position in 0..<characters {
                target[out] = alphabet[Int((group >> UInt32(18 - 6 * position)) & 0x3F)]
                out += 1
            }
            index += 3
        }
    }
}
