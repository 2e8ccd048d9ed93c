import Foundation

/// Tells the authorization server that a session is over. `GoTrueRefresher` (`POST /logout`) and
/// `OAuth2Refresher` (RFC 7009 revocation, OIDC end-session URL) conform; a custom server's
/// refresher can conform too.
public protocol SessionTerminator: Sendable {
    /// Ends the session at the server with the tokens the vault held before it was cleared (or
    /// the ones a refresh made for the sign-out; for scope `.others`, the live tokens the vault
    /// keeps). Never throws: every failure is a
    /// `ServerSignOut` the caller reports. Answer `.alreadyEnded` only when the server said it
    /// holds no session for these tokens, and `.accessTokenRejected` when it refused the access
    /// token without looking at the session (`ResumeManager.signOut` then refreshes once and asks
    /// again). With scope `.others` the vault still holds these tokens and keeps them: end only
    /// the user's other sessions, or answer `.notSupported` and send nothing.
    func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut
    /// The same for a DPoP-bound session (RFC 9449): `prover` is the session's, taken before the
    /// vault was cleared (or, for `.others`, from the session it keeps), for a request that carries the access token (`Authorization: DPoP`
    /// with a `DPoP` proof). Nil for a bearer session, and for a bound one whose key is lost or
    /// that this manager cannot prove (no `DPoPConfiguration`). By default the prover is not
    /// used. A bound session's tokens are handed to a terminator that does not end sessions
    /// with the access token too (`OAuth2Refresher` names them in a revocation body, which
    /// presents neither): never send one as a `Bearer` credential; the server refuses it, and
    /// the token has then been shown to whoever is on the path without its proof.
    func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut
    /// Whether this terminator can end the sessions `scope` names. `ResumeManager.signOut`
    /// asks before reading or sending anything for scope `.others` (which keeps this device's
    /// session); true by default. `OAuth2Refresher` answers false for `.others`.
    func canEnd(_ scope: SignOutScope) -> Bool
    /// The URL for RP-initiated logout, when the server has one.
    func endSessionURL() -> URL?
    /// The same with the session's ID token as `id_token_hint` (OIDC RP-Initiated Logout
    /// recommends it; some providers act on nothing else). `ResumeManager.signOut` passes the ID
    /// token it kept, read before the vault was cleared. By default the hint is not used.
    func endSessionURL(idTokenHint: Token?) -> URL?
    /// Whether ending the session needs a live access token (GoTrue's logout is authenticated
    /// by it): `ResumeManager.signOut` refreshes first when the stored one is dead or nearly so.
    /// False by default (RFC 7009 revokes by the refresh token).
    var endsSessionWithAccessToken: Bool { get }
}

extension SessionTerminator {
    /// Ignores `prover`: a terminator that ends sessions without the access token (RFC 7009
    /// revocation by the refresh token) needs none.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut {
        await endServerSession(refreshToken: refreshToken, accessToken: accessToken, scope: scope)
    }
    public func canEnd(_ scope: SignOutScope) -> Bool { true }
    public func endSessionURL() -> URL? { nil }
    public func endSessionURL(idTokenHint: Token?) -> URL? { endSessionURL() }
    public var endsSessionWithAccessToken: Bool { false }
}

/// Which sessions a server-side sign-out ends (GoTrue's `scope`; RFC 7009 revokes the one
/// refresh token whatever the scope).
public enum SignOutScope: String, Sendable, Equatable, CaseIterable {
    /// This device's session only.
    case local
    /// Every session of the user, on every device.
    case global
    /// Every session of the user except this one, which stays signed in on this device and at
    /// the server (`ResumeManager.signOut(scope:)` leaves the vault as it is).
    case others
}

/// What the server said to a sign-out. The local sign-out has happened whatever this says.
///
/// Only `.ended`, `.alreadyEnded` and `.noSession` say that the server holds no session for the
/// tokens the vault held; every other answer means it may (`SignOutResult.serverSessionMayOutlive`).
public enum ServerSignOut: Sendable, Equatable {
    /// The server ended the session (GoTrue) or revoked the refresh token (RFC 7009).
    case ended
    /// The server no longer knew the session (GoTrue `session_not_found` / `user_not_found`,
    /// 404, or a refresh token it refused as `invalid_grant`): nothing left to end.
    case alreadyEnded
    /// The server refused the access token that authenticates GoTrue's logout (expired, or a
    /// signature it does not accept) even after one refresh: the session was not looked at and
    /// may live on.
    case accessTokenRejected
    /// The server refused the app's client (RFC 7009 `invalid_client`, 401): nothing was revoked,
    /// and nothing will be until the client configuration is fixed. The text is the server's
    /// OAuth error code or the status, never a value we sent.
    case clientRejected(String)
    /// The server could not be told (offline, 5xx, unexpected answer); the detail names no token.
    case failed(String)
    /// The refresher has no way to tell its server (not a `SessionTerminator`, or no endpoint).
    case notSupported
    /// There was no session to end.
    case noSession

    /// Whether the server is known to hold no session for the tokens the vault held.
    var serverSessionGone: Bool {
        switch self {
        case .ended, .alreadyEnded, .noSession: return true
        case .accessTokenRejected, .clientRejected, .failed, .notSupported: return false
        }
    }

    /// Stable text for the audit log.
    var code: String {
        switch self {
        case .ended: return "ended"
        case .alreadyEnded: return "alreadyEnded"
        case .accessTokenRejected: return "accessTokenRejected"
        case .clientRejected: return "clientRejected"
        case .failed: return "failed"
        case .notSupported: return "notSupported"
        case .noSession: return "noSession"
        }
    }
}
