import Crypto
import Foundation

/// A P-256 public key as a JWK, and its RFC 7638 thumbprint: the `jkt` that a DPoP server binds
/// tokens to and the vault records with the session.
struct JWKThumbprint {
    /// base64url (RFC 4648 §5) without padding, as JOSE writes every binary value.
    static func base64URL<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The members of the public JWK in RFC 7638's canonical order (lexicographic, no spaces):
    /// the same text is the proof header's `jwk` and the thumbprint's input.
    static func canonicalJWK(publicKeyXY: [UInt8]) -> String? {
        guard publicKeyXY.count == 64 else { return nil }
        let x = base64URL(publicKeyXY.prefix(32)), y = base64URL(publicKeyXY.suffix(32))
        return #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
    }

    /// base64url(SHA-256(canonical JWK)); nil for a public key that is not 64 bytes.
    static func thumbprint(publicKeyXY: [UInt8]) -> String? {
        guard let jwk = canonicalJWK(publicKeyXY: publicKeyXY) else { return nil }
        return base64URL(SHA256.hash(data: Array(jwk.utf8)))
    }

    /// base64url(SHA-256(bytes)): the `ath` of a proof sent with an access token.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> String {
        base64URL(SHA256.hash(data: bytes))
    }
}
