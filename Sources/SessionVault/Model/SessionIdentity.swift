/// Who a session belongs to, as read from a token response (GoTrue `user` object, or the
/// claims of a JWT access or ID token). Claims are metadata for display and audit; SessionVault
/// does not verify JWT signatures and bases no decision on these claims.
public struct SessionIdentity: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The user's stable id at the authorization server (GoTrue `user.id`, the JWT `sub`).
    public var subject: String
    /// The token issuer (`iss`), when stated.
    public var issuer: String?
    /// The tenant or organisation the user signed in to, when stated.
    public var tenant: String?
    /// The user's email address, when stated. Personal data: never in `description`.
    public var email: String?
    /// A name to show, when stated. Personal data: never in `description`.
    public var displayName: String?
    /// Role names from the response (GoTrue `app_metadata.roles`, a `roles` claim).
    public var roles: [String]
    /// The user metadata object as compact JSON with sorted keys ("{}" when none).
    public var metadataJSON: String

    /// An identity the app supplies itself, e.g. for a plain RFC 6749 response that names no
    /// user (see `TokenResponse.identified(as:)` and `Vault.store(_:identity:biometricEnabled:serverClockOffset:)`).
    public init(
        subject: String, issuer: String? = nil, tenant: String? = nil, email: String? = nil,
        displayName: String? = nil, roles: [String] = [], metadataJSON: String = "{}"
    ) {
        self.subject = subject
        self.issuer = issuer
        self.tenant = tenant
        self.email = email
        self.displayName = displayName
        self.roles = roles
        self.metadataJSON = metadataJSON
    }

    /// Subject, tenant and roles; no email address, display name or metadata.
    public var description: String {
        "SessionIdentity(subject \(subject)\(tenant.map { ", tenant \($0)" } ?? "")"
            + "\(roles.isEmpty ? "" : ", roles \(roles.joined(separator: ","))"))"
    }
}
