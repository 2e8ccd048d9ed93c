/// The opened tokens of the current session, kept in locked memory while the vault is open.
struct StoredTokens: Sendable {
    var refresh: Token?
    var access: Token?
}
