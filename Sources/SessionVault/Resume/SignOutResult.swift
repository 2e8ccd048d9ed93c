import Foundation

/// The result of `ResumeManager.signOut(scope:)`: the vault is already cleared when it returns.
public struct SignOutResult: Sendable, Equatable {
    /// What the server said.
    public let server: ServerSignOut
    /// For OIDC servers with an `end_session_endpoint` (RP-initiated logout): the URL the app
    /// opens in a browser so the provider's own session ends too. Nil otherwise.
    public let endSessionURL: URL?
}
