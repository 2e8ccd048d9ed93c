import Foundation

/// Tells the authorization server that a session is over. `GoTrueRefresher` (`POST /logout`) and
/// `OAuth2Refresher` (RFC 7009 revocation, OIDC end-session URL) conform; a custom server's
/// refresher can conform too.
public protocol SessionTerminator: Sendable {
    /// Ends the session at the server with the tokens the vault held before it was cleared.
    /// Never throws: every failure is a `ServerSignOut.failed` the caller reports.
    func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut
    /// The URL for RP-initiated logout, when the server has one.
    func endSessionURL() -> URL?
}

extension SessionTerminator {
    public func endSessionURL() -> URL? { nil }
}
