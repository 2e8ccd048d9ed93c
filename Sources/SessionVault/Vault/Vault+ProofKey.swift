/// A DPoP sign-in's proof key on its way into the vault: its provider's stored form and its
/// RFC 7638 thumbprint, the value the server bound the tokens to.
package struct NewProofKey: Sendable {
    /// What the provider needs to find the key again (sealed by the vault under its field key).
    package let stored: SecretBytes
    /// base64url SHA-256 of the key's canonical JWK (`jkt`).
    package let thumbprint: String

    package init(stored: SecretBytes, thumbprint: String) {
        self.stored = stored
        self.thumbprint = thumbprint
    }
}

/// The current session's proof key as the vault holds it.
package struct StoredProofKey: Sendable {
    /// The session the key belongs to.
    package let sessionID: String
    /// The thumbprint recorded at sign-in; nil for a bearer session.
    package let thumbprint: String?
    /// The provider's stored form, opened from its seal; nil when the row holds none (a bearer
    /// session, or a DPoP session whose key is gone).
    package let stored: SecretBytes?
}

extension Vault {
    /// The current session's proof key; nil when no session is current. Notices changes
    /// committed by another process first, so every process of the app signs with the key of
    /// the session that is current now.
    /// - Throws: `.corrupted` when the sealed key does not open under the field key.
    package func currentProofKey() throws(VaultError) -> StoredProofKey? {
        try refreshIfChangedElsewhere()
        guard let record = state.current else { return nil }
        do {
            return StoredProofKey(sessionID: record.session.id, thumbprint: record.session.proofKeyThumbprint,
                                  stored: try record.openProofKey(with: keys))
        } catch {
            throw .corrupted(error)
        }
    }
}
