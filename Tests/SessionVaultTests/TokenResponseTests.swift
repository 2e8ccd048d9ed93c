import Foundation
import Testing
@testable import SessionVault

@Suite("TokenResponse: GoTrue and RFC 6749 bodies, bad input gets typed errors")
struct TokenResponseTests {
    func parse(_ json: String) throws(TokenResponseError) -> TokenResponse { try TokenResponse(json: Data(json.utf8)) }

    @Test(arguments: [
        ("not json", TokenResponseError.notJSON),
        ("[1,2]", .notJSON),
        (#"{"token_type":"bearer"}"#, .missingField("access_token")),
        (#"{"access_token":""}"#, .missingField("access_token")),
        (#"{"access_token":"a","expires_in":-5}"#, .invalidField("expires_in")),
        (#"{"access_token":"a","expires_in":"soon"}"#, .invalidField("expires_in")),
        (#"{"access_token":"a","refresh_token":42}"#, .invalidField("refresh_token")),
        (#"{"access_token":"a","refresh_token":""}"#, .invalidField("refresh_token"))
    ])
    func badBodiesAreRefusedByName(json: String, expected: TokenResponseError) {
        #expect(throws: expected) { try parse(json) }
    }

    @Test func theErrorNeverCarriesTheTokenValue() {
        let error = #expect(throws: TokenResponseError.self) { try parse(#"{"access_token":"SECRETVALUE","expires_in":"x"}"#) }
        #expect(!"\(String(describing: error))".contains("SECRETVALUE"))
    }

    @Test func numbersMayArriveAsStrings() throws {
        let response = try parse(#"{"access_token":"a","expires_in":"3600","expires_at":"1900000000","refresh_token":"r"}"#)
        #expect(response.expiresIn == 3600)
        #expect(response.expiresAt == 1_900_000_000)
    }

    @Test func theJWTExpiryIsUsedWhenTheBodyStatesNone() throws {
        // {"sub":"jwt-user","exp":1900000123}
        let response = try parse(#"{"access_token":"eyJhbGciOiJub25lIn0.eyJzdWIiOiJqd3QtdXNlciIsImV4cCI6MTkwMDAwMDEyM30.x"}"#)
        #expect(response.expiresIn == nil)
        #expect(response.expiresAt == 1_900_000_123)
        #expect(response.identity?.subject == "jwt-user")
        #expect(response.refreshToken == nil)
    }

    @Test func aSingleGoTrueRoleIsARoleList() throws {
        let response = try parse(#"{"access_token":"a","user":{"id":"u","app_metadata":{"role":"caregiver"}}}"#)
        #expect(response.identity?.roles == ["caregiver"])
        #expect(response.identity?.metadataJSON == "{}")
    }

    @Test func anOnlyServerStatedExpiryIsMovedOntoTheLocalClock() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let serverExpiry = Int64(fixture.clock.now.timeIntervalSince1970) + 3600
        let response = try parse(#"{"access_token":"a","expires_at":\#(serverExpiry),"refresh_token":"r","user":{"id":"u"}}"#)
        // The server's clock runs 10 minutes ahead of ours.
        let session = try await vault.store(response, serverClockOffset: 600)
        #expect(session.accessExpiresAt == fixture.clock.now.addingTimeInterval(3000))
        #expect(session.serverExpiresAt == Date(timeIntervalSince1970: Double(serverExpiry)))
    }
}
