/// Thrown by `Connection.readCheckingPageAuthentication` when SQLCipher flagged a page whose HMAC
/// did not verify during the read (it hands such a page over zeroed, without an error).
struct PageAuthenticationFailure: Error, Sendable, Equatable {}
