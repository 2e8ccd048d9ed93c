/// A P-256 key that DPoP proofs (RFC 9449) are signed with, ES256.
///
/// The signing itself happens in the conforming type (swift-crypto's `P256.Signing` in
/// `SoftwareProofKeyProvider`, CryptoKit's `SecureEnclave.P256.Signing` in an app's own
/// provider): SessionVault has no curve code of its own.
public protocol ProofSigningKey: Sendable {
    /// The public key as the 64 bytes `x || y` (the uncompressed point without its `0x04`
    /// prefix): what the proof's `jwk` header and the thumbprint (`jkt`) are made from.
    var publicKeyXY: [UInt8] { get }

    /// What the vault seals (under its field key) and hands back to the provider to find this
    /// key again: the private scalar for a software key, the opaque `dataRepresentation` for a
    /// Secure Enclave key (which only that device's Secure Enclave can use).
    func storedForm() throws(ProofKeyError) -> SecretBytes

    /// The ES256 signature of `message` (SHA-256, then ECDSA on P-256) as the 64 bytes `r || s`
    /// that a JWS carries.
    func signature(for message: [UInt8]) throws(ProofKeyError) -> [UInt8]
}

/// Makes the proof key of a new session and finds it again for the session's later requests.
///
/// One key per session: made at sign-in, before the token request (the server binds the tokens
/// to it), kept with the session and gone with it. The vault stores what `storedForm()` gives,
/// sealed under its field key, beside the key's thumbprint; sign-out, wipe and recovery delete
/// it with the session's row, rekey re-seals it. SessionVault ships `SoftwareProofKeyProvider`;
/// an app on Apple platforms can keep the key in the Secure Enclave instead:
///
/// ```swift
/// #if canImport(CryptoKit)
/// import CryptoKit
///
/// struct SecureEnclaveProofKeyProvider: ProofKeyProvider {
///     struct Key: ProofSigningKey {
///         let key: SecureEnclave.P256.Signing.PrivateKey
///         var publicKeyXY: [UInt8] { Array(key.publicKey.rawRepresentation) }
///         func storedForm() throws(ProofKeyError) -> SecretBytes {
///             var bytes = Array(key.dataRepresentation)
///             do { return try SecretBytes(consuming: &bytes) } catch { throw .failed("\(error)") }
///         }
///         func signature(for message: [UInt8]) throws(ProofKeyError) -> [UInt8] {
///             do { return Array(try key.signature(for: message).rawRepresentation) }
///             catch { throw .unavailable("\(error)") }
///         }
///     }
///     func makeKey() async throws(ProofKeyError) -> any ProofSigningKey {
///         do { return Key(key: try SecureEnclave.P256.Signing.PrivateKey()) } catch { throw .failed("\(error)") }
///     }
///     func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey {
///         // No enclave to ask right now is not a lost key: retry, keep the session.
///         guard SecureEnclave.isAvailable else { throw .unavailable("the Secure Enclave is not available") }
///         let data = stored.withUnsafeBytes { Data($0) }
///         // Only a key this Secure Enclave cannot use (another device's, or a reset enclave's)
///         // is lost.
///         let key: SecureEnclave.P256.Signing.PrivateKey
///         do { key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data) }
///         catch { throw .lost("the Secure Enclave cannot use this key") }
///         return Key(key: key)
///     }
/// }
/// #endif
/// ```
public protocol ProofKeyProvider: Sendable {
    /// A new key for a sign-in about to be sent.
    func makeKey() async throws(ProofKeyError) -> any ProofSigningKey

    /// The key whose `storedForm()` the vault kept. Throws `.lost` when it can never be used
    /// again (the session then ends as `missing(.proofKeyLost)`), `.unavailable` when not now.
    func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey
}

/// Why a DPoP proof key could not be made, found again or used.
///
/// `lost` is the one that ends a session: the key that the server bound the tokens to is gone
/// for good (a vault restored on a new device, a Secure Enclave that was reset), so every token
/// of the session is useless and nothing is sent with them. `unavailable` is "not now" (a
/// keystore locked after a restart): retry, never end the session for it.
public enum ProofKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is gone for good; `detail` says why (never key bytes).
    case lost(String)
    /// The key cannot be used right now; retry later.
    case unavailable(String)
    /// Making or using the key failed (a platform or library error).
    case failed(String)

    public var description: String {
        switch self {
        case .lost(let detail): return "proof key lost: \(detail)"
        case .unavailable(let detail): return "proof key unavailable right now: \(detail)"
        case .failed(let detail): return "proof key failure: \(detail)"
        }
    }
}
