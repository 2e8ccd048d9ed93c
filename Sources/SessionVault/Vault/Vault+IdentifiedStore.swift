import Foundation

extension Vault {
    /// Stores a new sign-in whose response does not say who signed in (a plain RFC 6749 token
    /// response: opaque tokens, no `user`, no `sub`), under the identity the app supplies.
    /// Otherwise exactly `store(_:biometricEnabled:serverClockOffset:)`; see
    /// `TokenResponse.identified(as:)` for how the two identities combine.
    /// - Throws: `.invalidTokenResponse(.invalidField("sub"))` when the response names another subject.
    @discardableResult
    public func store(_ response: TokenResponse, identity: SessionIdentity, biometricEnabled: Bool? = nil,
                      serverClockOffset: TimeInterval? = nil) throws(VaultError) -> Session {
        let identified: TokenResponse
        do {
            identified = try response.identified(as: identity)
        } catch {
            throw .invalidTokenResponse(error)
        }
        return try store(identified, biometricEnabled: biometricEnabled, serverClockOffset: serverClockOffset)
    }
}
