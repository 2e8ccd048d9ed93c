import Foundation
import SessionVault

extension SessionLayer {
    /// After your login screen got a token response from the server: the body as received. A
    /// plain RFC 6749 response does not say who signed in, so pass the user id your app knows
    /// (a GoTrue response names its user: `manager.vault.store(response)` is enough).
    func signedIn(tokenResponse body: Data, userID: String) async throws -> Session {
        let response = try TokenResponse(json: body)
        return try await manager.vault.store(response, identity: SessionIdentity(subject: userID))
    }
}
