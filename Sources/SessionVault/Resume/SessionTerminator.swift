import Foundation

/// Tells the authorization server that a session is over. `GoTrueRefresher` (`POST /logout`) and
/// `OAuth2Refresher` (RFC 7009 revocation, OIDC end-session URL) conform; a custom server's
/// refresher can conform too.
public protocol SessionTerminator: Sendable {
    /// Ends the session at the server with the tokens the vault held before it was cleared (or
    /// the ones a refresh made for the sign-out). Never throws: every failure is a
    /// `ServerSignOut` the caller reports. Answer `.alreadyEnded` only when the server said it
    /// holds no session for these tokens, and `.accessTokenRejected` when it refused the access
    /// token without looking at the session (`ResumeManager.signOut` then refreshes once and asks
    /// again).
    func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut
    /// The same for a DPoP-bound session (RFC 9449): `prover` is the session's, taken before the
    /// vault was cleared, for a request that carries the access token (`Authorization: DPoP`
    /// with a `DPoP` proof). Nil for a bearer session. By default the prover is not used.
    func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut
    /// The URL for RP-initiated logout, when the server has one.
    func endSessionURL() -> URL?
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
    public func endSessionURL() -> URL? { nil }
    public var endsSessionWithAccessToken: Bool { false }
}

/// Which sessions a server-side sign-out ends (GoTrue's `scope`; RFC 7009 revokes the one
/// refresh token whatever the scope).
public enum SignOutScope: String, Sendable, Equatable, CaseIterable {
    /// This device's session only.
    case local
    /// Every session of the user, on every device.
    case global
    /// Every session of the user except this one.
    case others
}
