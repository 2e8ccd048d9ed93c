/// Where a vault's 32-byte root key comes from.
///
/// SessionVault ships `KeyFileProvider`, `PassphraseKeyProvider` and `InMemoryKeyProvider`. An
/// app on Apple platforms conforms its own Keychain-backed type (see the README): return
/// `.missing` when the item is not found and `.unavailable` for `errSecInteractionNotAllowed`
/// (the device is locked after a restart), so a locked keychain is never read as "no session".
public protocol KeyProvider: Sendable {
    /// Returns the root key.
    ///
    /// - Parameters:
    ///   - recorded: the derivation the vault header recorded, or nil for a new vault.
    ///   - create: true when the vault is being created; a provider with no key yet makes one.
    ///     When false, a provider with no key throws `.missing`.
    func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey

    /// Destroys the stored key (crypto-shred) when the vault is wiped.
    func destroyKey() throws(KeyProviderError)
}

extension KeyProvider {
    /// Destroys the key material (crypto-shred), called by a recovery wipe. The default does
    /// nothing: deleting the vault header already destroys the salt and key check value. A
    /// provider that stores a key (key file, keychain item) deletes it.
    public func destroyKey() throws(KeyProviderError) {}
}
