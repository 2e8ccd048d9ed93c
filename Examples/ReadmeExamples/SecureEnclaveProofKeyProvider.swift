#if canImport(CryptoKit)
import CryptoKit
import Foundation
import SessionVault

/// The DPoP proof key in the Secure Enclave: the vault keeps only the key's wrapped form, which
/// no other device can use, so a restored copy answers login(proofKeyLost) and sends nothing.
struct SecureEnclaveProofKeyProvider: ProofKeyProvider {
    struct Key: ProofSigningKey {
        let key: SecureEnclave.P256.Signing.PrivateKey
        var publicKeyXY: [UInt8] { Array(key.publicKey.rawRepresentation) }
        func storedForm() throws(ProofKeyError) -> SecretBytes {
            var bytes = Array(key.dataRepresentation)
            do { return try SecretBytes(consuming: &bytes) } catch { throw .failed("\(error)") }
        }
        func signature(for message: [UInt8]) throws(ProofKeyError) -> [UInt8] {
            do { return Array(try key.signature(for: message).rawRepresentation) } catch { throw .unavailable("\(error)") }
        }
    }

    func makeKey() async throws(ProofKeyError) -> any ProofSigningKey {
        do { return Key(key: try SecureEnclave.P256.Signing.PrivateKey()) } catch { throw .failed("\(error)") }
    }

    func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey {
        // No enclave to ask right now is not a lost key: retry, keep the session.
        guard SecureEnclave.isAvailable else { throw .unavailable("the Secure Enclave is not available") }
        let data = stored.withUnsafeBytes { Data($0) }
        // Only a key this Secure Enclave cannot use (another device's, or a reset enclave's) is lost.
        let key: SecureEnclave.P256.Signing.PrivateKey
        do { key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data) }
        catch { throw .lost("the Secure Enclave cannot use this key") }
        return Key(key: key)
    }
}
#endif
