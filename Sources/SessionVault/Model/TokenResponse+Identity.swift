extension TokenResponse {
    /// This response with the identity the app supplies: for a plain RFC 6749 response (opaque
    /// tokens, no `user`, no `sub`), where the app knows who just signed in and the server does
    /// not say.
    ///
    /// Fields the app leaves nil are filled from what the response carries (claims of a JWT
    /// access or ID token), if anything. A response that names a different subject is refused
    /// with `.invalidField("sub")`: the tokens would belong to someone else than the app thinks.
    public func identified(as identity: SessionIdentity) throws(TokenResponseError) -> TokenResponse {
        var merged = identity
        if let stated = self.identity {
            guard stated.subject == identity.subject else { throw .invalidField("sub") }
            merged.issuer = identity.issuer ?? stated.issuer
            merged.tenant = identity.tenant ?? stated.tenant
            merged.email = identity.email ?? stated.email
            merged.displayName = identity.displayName ?? stated.displayName
            if identity.roles.isEmpty { merged.roles = stated.roles }
            if identity.metadataJSON == "{}" { merged.metadataJSON = stated.metadataJSON }
        }
        var copy = self
        copy.identity = merged
        return copy
    }
}
