import Foundation

extension Session {
    /// This session as `Vault.rotate` leaves it in the file: new fingerprints, expiries and token
    /// version, pending mark cleared, a refresh expiry and scope kept when the response has none,
    /// email and display name updated when the response carries them. Mirrors the UPDATE in
    /// `rotate` (a test compares the two by reopening the file).
    func rotated(_ response: TokenResponse, times: TokenTimes, sealed: (refresh: Fingerprint?, access: Fingerprint), version: Int64) -> Session {
        var identity = self.identity
        if let incoming = response.identity {
            identity.email = incoming.email ?? identity.email
            identity.displayName = incoming.displayName ?? identity.displayName
        }
        return Session(
            id: id, identity: identity, activeSubject: activeSubject, tokenType: response.tokenType, scope: response.scope ?? scope,
            refreshTokenFingerprint: sealed.refresh, accessTokenFingerprint: sealed.access,
            accessExpiresAt: times.accessExpiresAt.map(Date.init(unixMilliseconds:)),
            serverExpiresAt: times.serverExpiresAt.map(Date.init(unixMilliseconds:)),
            // Clamped to the issue time like the UPDATE does: a clock moved back must not make
            // the row look damaged (see SessionRow.checkInvariants).
            refreshExpiresAt: response.refreshToken == nil ? refreshExpiresAt
                : times.refreshExpiresAt.map { max(Date(unixMilliseconds: $0), issuedAt) },
            issuedAt: issuedAt, absoluteDeadline: absoluteDeadline, lastActiveAt: lastActiveAt,
            biometricEnabled: biometricEnabled, tokenVersion: version, refreshPendingSince: nil)
    }
}
