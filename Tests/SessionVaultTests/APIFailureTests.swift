import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("handleAPIFailure: the 401 SESSION_EXPIRED / AUTH_REQUIRED contract")
struct APIFailureTests {
    let fixture = TestVault()

    func managerWithSession() async throws -> ResumeManager {
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        return ResumeManager(vault: vault, refresher: GoTrueRefresher(baseURL: URL(fileURLWithPath: "/"), apiKey: "k"))
    }

    /// The same words in a page from something in front of the API (not its JSON) end nothing.
    @Test(arguments: [(401, "Invalid Refresh Token"), (403, "<html><body>Session expired</body></html>")])
    func wordsOutsideTheServersJSONEndNothing(status: Int, body: String) async throws {
        let manager = try await managerWithSession()
        let sent = try #require(try await manager.vault.accessToken())
        #expect(await manager.handleAPIFailure(status: status, body: Data(body.utf8), sentToken: sent) == nil)
        #expect(try await manager.vault.refreshToken() != nil)
    }

    @Test(arguments: [
        (401, #"{"success":false,"error":{"code":"SESSION_EXPIRED","message":"Ihre Sitzung ist abgelaufen."}}"#, MissingReason.sessionExpired, true),
        (401, #"{"success":false,"error":{"code":"AUTH_REQUIRED","message":"Authentication required"}}"#, .authRequired, false),
        (403, #"{"error":"Token Expired"}"#, .sessionExpired, true),
        (401, #"{"error":"session expired"}"#, .sessionExpired, true),
        (401, #"{"error_code":"refresh_token_not_found"}"#, .sessionExpired, true),
        (401, #"{"message":"Invalid Refresh Token"}"#, .sessionExpired, true)
    ])
    func authFailuresClearTokensAndGiveLogin(status: Int, body: String, reason: MissingReason, message: Bool) async throws {
        let manager = try await managerWithSession()
        let sent = try #require(try await manager.vault.accessToken())
        let outcome = await manager.handleAPIFailure(status: status, body: Data(body.utf8), sentToken: sent)
        #expect(outcome == .login(reason: reason, showExpiredMessage: message))
        let vault = try await manager.vault
        #expect(try await vault.refreshToken() == nil)
        #expect(try await vault.accessToken() == nil)
    }

    @Test(arguments: [(403, #"{"error":"forbidden","message":"not your record"}"#), (500, #"{"error":"SESSION_EXPIRED"}"#), (404, "")])
    func otherFailuresAreLeftToTheApp(status: Int, body: String) async throws {
        let manager = try await managerWithSession()
        let sent = try #require(try await manager.vault.accessToken())
        #expect(await manager.handleAPIFailure(status: status, body: Data(body.utf8), sentToken: sent) == nil)
        #expect(try await manager.vault.refreshToken() != nil, "tokens kept")
    }

    /// The challenge is read as RFC 9110 challenges (the header may list several, any order):
    /// `invalid_token` counts as the `error` parameter of a Bearer or DPoP challenge only.
    @Test(arguments: [
        (#"Bearer error="invalid_token""#, true),
        (#"Basic realm="api", Bearer error="invalid_token""#, true),
        (#"DPoP algs="ES256", error="invalid_token""#, true),
        (#"Bearer error = "invalid_token", error_description="expired""#, true),
        (#"Bearerish error="invalid_token""#, false),
        (#"Newauth realm="x", error="invalid_token""#, false),
        (#"Bearer error="insufficient_scope", error_description="not an invalid_token""#, false),
        (#"DPoP error="use_dpop_nonce""#, false),
        (#"Bearer error_uri=https://api.example/?a=b, error="invalid_token""#, true)
    ])
    func challengeSaysInvalidTokenOnlyAsItsErrorParameter(header: String, refreshes: Bool) {
        let verdict = APIFailureVerdict.classify(status: 401, body: Data(), wwwAuthenticate: header)
        #expect((verdict == .refreshAccessToken) == refreshes, "\(header): \(verdict)")
    }
}
