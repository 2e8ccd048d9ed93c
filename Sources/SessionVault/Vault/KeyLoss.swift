import Foundation

/// Whether a key the provider cannot hand over is this vault's key, lost, or a provider that is
/// not this vault's (a misconfiguration: nothing is wiped).
///
/// Only the key the vault names can be lost. The vault records which key seals it (the header's
/// `keyIdentity`, from `KeyProvider.identity`): a missing key, or a key file that holds no key
/// any more, counts as this vault's lost key only when the provider asked is the one recorded.
/// A key file of zeros at the named key is what a wipe's overwrite leaves. Its torn remains
/// (part zeros, part key bytes) count only when the vault's own record says a wipe was under
/// way: its tombstone, which a recovery wipe writes, durably, before it touches the key.
///
/// A vault whose header names no key (written before identities were recorded, or sealed by a
/// passphrase) keeps the rule it had: a missing key is lost. Its first successful open records
/// the identity.
enum KeyLoss {
    static func judge(_ error: KeyProviderError, header: VaultHeader, provider: any KeyProvider, files: VaultFiles) -> VaultError {
        let destroyedKeyFile = (provider as? KeyFileProvider)?.holdsNoKey() == true
        switch error {
        case .missing, .invalid:
            break
        case .misconfigured where destroyedKeyFile:
            // The torn remains of a wipe's overwrite (part zeros, part key) carry no magic.
            break
        default:
            return VaultError(error, existingVault: true)
        }
        if let recorded = header.keyIdentity, !recorded.names(provider.identity) {
            return .otherKey(vaultKey: "\(recorded)", providerKey: provider.identity?.description ?? "a provider that names no key")
        }
        // Zeros where the named key was: what a wipe's overwrite leaves (the key is gone, the
        // file names it). Torn remains carry no mark a stray file could not carry too: only a
        // wipe's own record, written before it touched the key, proves them.
        if destroyedKeyFile, (provider as? KeyFileProvider)?.holdsShreddedKey() != true {
            guard FileIO.exists(files.tombstone) else {
                return .misconfigured(
                    "\(error): the key file holds no key, and no wipe of this vault was under way (no tombstone); "
                        + "nothing proves it this vault's destroyed key, so nothing was wiped")
            }
            return .corrupted(CorruptionReason(.keyMissing, "the key file holds the torn remains of a wipe's overwrite"))
        }
        return VaultError(error, existingVault: true)
    }
}
