#if canImport(Security)
import Foundation
import Security
import SessionVault

/// The root key in the Keychain, on this device only: a restored backup brings the vault file
/// without its key, which is reported as corrupted(.keyMissing) and wiped, never half-used.
struct KeychainKeyProvider: KeyProvider {
    let account = "session-vault-root-key"

    /// The key the vault records as its own: a missing item is this vault's lost key only when
    /// the vault names this one (another account is a misconfiguration, nothing is wiped).
    var identity: KeyIdentity? { KeyIdentity(kind: "keychain", name: account) }

    func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey {
        var item: CFTypeRef?
        let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                    kSecReturnData as String: true]
        switch SecItemCopyMatching(query as CFDictionary, &item) {
        case errSecSuccess:
            guard var bytes = (item as? Data).map(Array.init), bytes.count == RootKey.byteCount,
                  let key = try? SecretBytes(consuming: &bytes) else { throw .invalid("the keychain item is not a root key") }
            return RootKey(bytes: key)
        case errSecInteractionNotAllowed:           // locked after a restart: retry, never "no session"
            throw .unavailable(retryAfter: 2, detail: "keychain locked")
        case errSecItemNotFound where create:
            guard let key = try? SecretBytes.random(count: RootKey.byteCount) else {
                throw .crypto(.secureAllocationFailed(bytes: RootKey.byteCount))
            }
            let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                      kSecValueData as String: key.withUnsafeBytes { Data($0) },
                                      kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly]
            guard SecItemAdd(add as CFDictionary, nil) == errSecSuccess else { throw .unavailable(retryAfter: 2, detail: "keychain add failed") }
            return RootKey(bytes: key)
        case errSecItemNotFound:
            throw .missing("no keychain item")      // with an existing vault: corrupted(.keyMissing), then a fresh one
        case let status:
            throw .unavailable(retryAfter: 2, detail: "keychain status \(status)")
        }
    }

    func destroyKey() throws(KeyProviderError) {
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account] as CFDictionary)
    }
}
#endif
