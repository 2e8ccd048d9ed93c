/// Who a session belongs to, as read from a token response (GoTrue `user` object, or the
/// claims of a JWT access or ID token). Claims are metadata for display and audit; SessionVault
/// does not verify JWT signatures and bases no decision on these claims.
public struct SessionIdentity: Sendable, Equatable, Codable {
    public var subject: String
    public var issuer: String?
    public var tenant: String?
    public var email: String?
    public var displayName: String?
    public var roles: [String]
    /// The user metadata object as compact JSON with sorted keys ("{}" when none).
    public var metadataJSON: String

    public init(subject: String, issuer: String? = nil, tenant: String? = nil, email: String? = nil,
                displayName: String? = nil, roles: [String] = [], metadataJSON: String = "{}") {
        self.subject = subject
        self.issuer = issuer
        self.tenant = tenant
        self.email = email
        self.displayName = displayName
        self.roles = roles
        self.metadataJSON = metadataJSON
    }
}
