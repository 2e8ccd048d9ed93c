import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("An RFC 6749 response stored with the identity the app supplies")
struct TokenResponseIdentityTests {
    @Test func opaqueResponseTakesTheAppsIdentity() async throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: false))
        #expect(response.identity == nil)
        let fixture = TestVault()
        let vault = try fixture.open()
        let session = try await vault.store(response, identity: SessionIdentity(subject: "app-user", email: "a@example.org"))
        #expect(session.identity.subject == "app-user")
        #expect(session.identity.email == "a@example.org")
        #expect(session.hasRefreshToken)
    }

    @Test func claimsFillWhatTheAppLeftOut() throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: true))
        let identified = try response.identified(as: SessionIdentity(subject: "oauth-user"))
        #expect(identified.identity?.issuer == "https://idp.example")
        #expect(identified.identity?.email == "o@example.org")
    }

    @Test func aResponseNamingAnotherSubjectIsRefused() async throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: true))
        #expect(throws: TokenResponseError.invalidField("sub")) { try response.identified(as: SessionIdentity(subject: "someone-else")) }
        let vault = try TestVault().open()
        await #expect(throws: VaultError.invalidTokenResponse(.invalidField("sub"))) {
            try await vault.store(response, identity: SessionIdentity(subject: "someone-else"))
        }
        #expect(try await vault.currentSession() == nil)
    }
}
