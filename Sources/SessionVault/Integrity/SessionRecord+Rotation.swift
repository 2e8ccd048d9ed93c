import Foundation

extension SessionRecord {
    /// The columns a rotation writes: what `rotated` changes, and nothing else, so that what
    /// another process changed meanwhile in the other columns (activity, biometric unlock,
    /// the active subject) stays.
    static let rotationColumns: [Column] = [
        .refreshToken, .accessToken, .refreshFingerprint, .accessFingerprint, .accessExpiresAt, .serverExpiresAt,
        .refreshExpiresAt, .tokenType, .scope, .tokenVersion, .refreshPendingSince, .email, .displayName,
        .accessIssuedAt, .proofKey, .proofJKT, .refreshRefusedSince, .idToken
    ]

    /// The columns a re-seal under new keys writes (`Vault.rekey`).
    static let tokenColumns: [Column] = [.refreshToken, .accessToken, .refreshFingerprint, .accessFingerprint]

    /// This record after a refresh: the new sealed tokens and their fingerprints, expiries and
    /// token version, the pending mark cleared; the refresh expiry and scope kept when the
    /// response states none (RFC 6749 §6), email and display name updated when it carries them.
    func rotated(_ response: TokenResponse, times: TokenTimes, sealed: SealedTokens, version: Int64) -> SessionRecord {
        var record = withTokens(sealed)
        // Another subject in an access token alone says nothing of this user (see
        // `TokenResponse.identityFromAccessTokenOnly`): its e-mail and name are not taken.
        if let incoming = response.identity, !response.identityFromAccessTokenOnly || incoming.subject == session.identity.subject {
            record.session.identity.email = incoming.email ?? session.identity.email
            record.session.identity.displayName = incoming.displayName ?? session.identity.displayName
        }
        record.session.tokenType = response.tokenType
        record.session.scope = response.scope ?? session.scope
        record.session.accessExpiresAt = times.accessExpiresAt.map(Date.init(unixMilliseconds:))
        record.session.serverExpiresAt = times.serverExpiresAt.map(Date.init(unixMilliseconds:))
        record.session.accessIssuedAt = Date(unixMilliseconds: times.accessIssuedAt)
        if response.refreshToken != nil {
            // Never before the issue time: a clock moved back must not make the row look damaged
            // (see `checkInvariants`).
            record.session.refreshExpiresAt = max(Date(unixMilliseconds: times.refreshExpiresAt), session.issuedAt)
        }
        record.session.tokenVersion = version
        record.session.refreshPendingSince = nil
        // The server answered with tokens: whatever it refused before is over.
        record.session.refreshRefusedSince = nil
        // A DPoP session answered with tokens of another type (a bearer downgrade the manager
        // accepted): they are bound to no key, so the key goes, as a downgraded sign-in keeps
        // none; otherwise the session would go on signing for tokens that need no proof.
        if session.proofKeyThumbprint != nil, response.tokenType.lowercased() != "dpop" {
            record.sealedProofKey = nil
            record.session.proofKeyThumbprint = nil
        }
        return record
    }
}
