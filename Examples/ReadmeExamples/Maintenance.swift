import SessionVault

/// Without a manager, an open that reports damage is followed by the recovery wipe.
func openRecovering(path: String, keyProvider: any KeyProvider) throws -> Vault {
    do {
        return try Vault.open(at: path, keyProvider: keyProvider)
    } catch VaultError.corrupted(let reason) where reason.kind != .wrongKey {   // a wrong key is never wiped
        do {
            try Vault.recover(at: path, keyProvider: keyProvider, reason: reason)   // only the files diagnosed: tombstone, crypto-shred, delete
        } catch VaultError.changedElsewhere {
            // Another process recovered or replaced the vault meanwhile: nothing was wiped.
        }
        return try Vault.open(at: path, keyProvider: keyProvider)    // fresh (missing(.wipedAfterCorruption(kind))), or the other's
    }
}

/// A new root key, and a full scan.
func rekeyAndVerify(_ vault: Vault, newKeyPath: String) async throws -> VerificationReport {
    try await vault.rekey(to: KeyFileProvider(path: newKeyPath))    // the old key no longer opens it
    return try await vault.verify()                                  // every page and every sealed token
}
