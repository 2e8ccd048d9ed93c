#if canImport(Security)
import Foundation
import Security
import SessionVault

/// The generation record beside the root key, in a second Keychain item of the same class.
extension KeychainKeyProvider {
    private var recordQuery: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account + ".generation"]
    }

    func generationRecord() throws(KeyProviderError) -> [UInt8]? {
        var item: CFTypeRef?
        var query = recordQuery
        query[kSecReturnData as String] = true
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess else { return nil }
        return (item as? Data).map(Array.init)
    }

    func storeGenerationRecord(_ record: [UInt8]) throws(KeyProviderError) {
        let data = Data(record)
        if SecItemUpdate(recordQuery as CFDictionary, [kSecValueData as String: data] as CFDictionary) == errSecItemNotFound {
            var add = recordQuery
            add[kSecValueData as String] = data
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            SecItemAdd(add as CFDictionary, nil)
        }
    }
}
#endif
