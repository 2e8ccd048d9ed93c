import SessionVault
import SessionVaultTesting

/// A key file made ahead of the first launch (an installer, a provisioning step); the first
/// open makes one too. 32 random bytes, mode 0600; never overwrites a file.
func provisionKeyFile(at path: String) throws -> KeyFileProvider {
    try KeyFileProvider.create(at: path)
}

/// A passphrase a person types (a tool, an admin screen): Argon2id, about 85 ms, so never on
/// the launch path. The typed bytes move into locked memory; the array is zeroed.
func passphraseProvider(typed: inout [UInt8]) throws -> PassphraseKeyProvider {
    PassphraseKeyProvider(passphrase: try SecretBytes(consuming: &typed))
}

/// Tests and previews: a key in memory that can act like a locked keystore.
func lockedKeystoreForTests() throws -> InMemoryKeyProvider {
    let provider = try InMemoryKeyProvider()
    provider.setState(.locked)                  // resume() answers .unavailable: never "signed out"
    return provider
}
