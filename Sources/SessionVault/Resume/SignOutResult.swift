import Foundation

/// The result of `ResumeManager.signOut(scope:)`: the vault is already cleared when it returns.
///
/// What it says about the server session, case by case:
/// - `server` is `.ended`, `.alreadyEnded` or `.noSession` and `refreshWasInFlight` is false:
///   the server holds no session for any token this vault held.
/// - `refreshWasInFlight`: another process (or manager) held the refresh lock for longer than
///   `refreshWaitLimit`; its refresh may bring tokens this sign-out never saw. That holder finds
///   the session gone when its answer arrives and ends the server session with what it received;
///   until then (or for ever, if that process dies first) the server may hold a session.
/// - scope `others`: the server ends the user's other sessions and keeps this one by design,
///   while the vault was cleared: this device's server session lives on until it expires, so
///   `serverSessionMayOutlive` is true whatever `server` says.
/// - anything else (offline, refused, unsupported): the server session lives until the server
///   ends it by its own expiry. SessionVault keeps no copy of the tokens to retry with: after a
///   sign-out nothing in the vault's files can act as the user.
public struct SignOutResult: Sendable, Equatable {
    /// What the server said.
    public let server: ServerSignOut
    /// For OIDC servers with an `end_session_endpoint` (RP-initiated logout): the URL the app
    /// opens in a browser so the provider's own session ends too. Nil otherwise.
    public let endSessionURL: URL?
    /// Another holder of the refresh lock was still refreshing when the sign-out stopped waiting
    /// for it (see `ResumeManager.refreshWaitLimit`).
    public let refreshWasInFlight: Bool

    /// The sign-out asked the server to keep this device's session (scope `others`).
    let serverKeepsThisSession: Bool

    /// Whether the server may still hold a session for this user on this device: true unless the
    /// server confirmed it holds none and no refresh elsewhere can have made a new token (and
    /// always after scope `others`, which leaves this device's server session alone).
    public var serverSessionMayOutlive: Bool { !server.serverSessionGone || refreshWasInFlight || serverKeepsThisSession }

    init(server: ServerSignOut, endSessionURL: URL?, refreshWasInFlight: Bool = false, serverKeepsThisSession: Bool = false) {
        self.server = server
        self.endSessionURL = endSessionURL
        self.refreshWasInFlight = refreshWasInFlight
        self.serverKeepsThisSession = serverKeepsThisSession
    }
}
