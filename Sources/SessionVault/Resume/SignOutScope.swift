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
