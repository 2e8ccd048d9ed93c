import Foundation

/// Whether a key the provider cannot hand over is this vault's key, lost, or a provider that is
/// not this vault's (a misconfiguration: nothing is wiped).
///
/// Only the key the vault names can be lost. The vault records which key seals it (the header's
/// `keyIdentity`, from `KeyProvider.identity`): a missing key, or a key file that holds no key
/// any more, counts as this vault's lost key only when the provider asked is the one recorded.
/// A key file that holds no key there (zeros, or their torn remains: part zeros, part key bytes)
/// counts only when the vault's own record says a wipe was under way: the tombstone every wipe
/// writes, durably, before it touches the key (a wipe the app asked for removes it when done).
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
            return .otherKey(vaultKey: "\(recorded)", providerKey: provider.identity?.described ?? "a provider that names no key")
        }
        // A key file that holds no key at the named key: what a wipe's overwrite leaves, whole or
        // torn. The bytes carry no mark a stray file could not carry too: only the wipe's own
        // record, the tombstone it writes before it touches the key, proves them. A vault that
        // names no key (an older release's) keeps the old rule for whole zeros.
        let oldRuleZeros = header.keyIdentity == nil && (provider as? KeyFileProvider)?.holdsShreddedKey() == true
        if destroyedKeyFile, !oldRuleZeros {
            guard FileIO.exists(files.tombstone) else {
                return .misconfigured(
                    "\(error): the key file holds no key, and no wipe of this vault was under way (no tombstone); "
                        + "nothing proves it this vault's destroyed key, so nothing was wiped")
            }
            return .corrupted(CorruptionReason(.keyMissing, "the key file holds no key: a key destroyed by a wipe that was interrupted"))
        }
        return VaultError(error, existingVault: true)
    }
}
