import Foundation
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
    ///
    /// A DPoP session's key whose seal does not open under the field key (an older library's
    /// rekey re-sealed only the tokens, bytes changed behind the library's back) comes back as
    /// no key (`stored` nil): the key is lost, and the session ends as `proofKeyLost`. It is not
    /// corruption: the tokens are intact, and recovering would wipe a vault for a key that a
    /// wipe cannot bring back either.
    /// - Throws: `.corrupted` when a key is stored for a session without a thumbprint and does
    ///   not open.
    package func currentProofKey() throws(VaultError) -> StoredProofKey? {
        try reloadIfChangedElsewhere()
        guard let record = state.current else { return nil }
        let stored: SecretBytes?
        do {
            stored = try record.openProofKey(with: keys)
        } catch {
            guard record.session.proofKeyThumbprint != nil else { throw .corrupted(error) }
            logger.error("the session's sealed proof key does not open; treated as lost", metadata: ["session.id": "\(record.session.id)"])
            stored = nil
        }
        return StoredProofKey(sessionID: record.session.id, thumbprint: record.session.proofKeyThumbprint, stored: stored)
    }
}

extension Vault {
    /// The server clock offset (server minus device seconds) the vault recorded with the last
    /// tokens it stored; 0 when none was measured. DPoP proofs are dated with it until the
    /// process measures its own (`DPoPServerClock`).
    package func recordedServerClockOffset() throws(VaultError) -> TimeInterval {
        try reloadIfChangedElsewhere()
        return state.serverClockOffset
    }
}

extension Vault {
    /// The current session's ID token, for the end-session URL's `id_token_hint`; nil when none
    /// is kept (or it does not open).
    func currentIDToken() throws(VaultError) -> Token? {
        try reloadIfChangedElsewhere()
        return state.current?.openIDToken(with: keys)
    }
}
