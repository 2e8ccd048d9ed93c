import CSodium
import Crypto
import Foundation

/// The default proof key: a software P-256 key (swift-crypto's `P256.Signing`, CryptoKit on
/// Apple platforms) whose private scalar the vault keeps sealed under its field key.
///
/// It guards tokens that leave the device without the vault and its root key (a server log, a
/// proxy, a token copied from memory or a request): they are useless without the key. It does
/// not guard against whoever has both the vault and its root key, nor against code running on
/// the device that can use the key: for a key that never leaves the hardware, use a Secure
/// Enclave provider (see `ProofKeyProvider`).
public struct SoftwareProofKeyProvider: ProofKeyProvider {
    /// The provider.
    public init() {}

    /// A fresh random P-256 key.
    public func makeKey() async throws(ProofKeyError) -> any ProofSigningKey {
        try SoftwareProofKey(P256.Signing.PrivateKey())
    }

    /// The key from its 32-byte private scalar; `.lost` only when the bytes are no P-256 key.
    /// Anything else (locked memory that cannot be had now) is `.failed`: passed through, not
    /// the end of the session.
    public func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey {
        let key: P256.Signing.PrivateKey
        do {
            key = try stored.withUnsafeBytes { try P256.Signing.PrivateKey(rawRepresentation: $0) }
        } catch {
            throw .lost("the stored proof key is not a P-256 private key")
        }
        return try SoftwareProofKey(key)
    }
}

/// A software P-256 key (see `SoftwareProofKeyProvider`).
///
/// Kept as its private scalar in locked memory (`SecretBytes`), and turned into swift-crypto's
/// key for each signature: that type is not `Sendable` on Linux, and the scalar is then in
/// ordinary memory only for the moment of signing.
struct SoftwareProofKey: ProofSigningKey {
    let scalar: SecretBytes
    let publicKeyXY: [UInt8]

    init(_ key: P256.Signing.PrivateKey) throws(ProofKeyError) {
        // swift-crypto hands the scalar out as `Data`, which cannot be zeroed: it is copied into
        // locked memory at once and the `Data` dropped.
        var bytes = Array(key.rawRepresentation)
        // Zeroed however this ends: `SecretBytes(consuming:)` zeroes only when it succeeds.
        defer { bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) } }
        do { scalar = try SecretBytes(consuming: &bytes) } catch { throw .failed("\(error)") }
        publicKeyXY = Array(key.publicKey.rawRepresentation)
    }

    func storedForm() throws(ProofKeyError) -> SecretBytes {
        do { return try scalar.withUnsafeBytes { try SecretBytes(copying: $0) } } catch { throw .failed("\(error)") }
    }

    func signature(for message: [UInt8]) throws(ProofKeyError) -> [UInt8] {
        do {
            let key = try scalar.withUnsafeBytes { try P256.Signing.PrivateKey(rawRepresentation: $0) }
            return Array(try key.signature(for: message).rawRepresentation)
        } catch {
            throw .failed("P-256 signing failed")
        }
    }
}
