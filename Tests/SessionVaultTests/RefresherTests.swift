import Foundation
import Testing
@testable import SessionVault

@Suite("Refreshers: GoTrue and RFC 6749 requests and error classes on a live local server")
struct RefresherTests {
    let server: ScriptedHTTPServer
    init() throws { server = try ScriptedHTTPServer() }

    var oauth: OAuth2Refresher {
        OAuth2Refresher(tokenEndpoint: server.baseURL.appendingPathComponent("oauth/token"), clientID: "mobile app", scope: "openid offline_access")
    }

    @Test func oauth2SendsAFormEncodedRefreshGrant() async throws {
        server.enqueue(.json(#"{"access_token":"a2","token_type":"Bearer","expires_in":300,"refresh_token":"r2"}"#))
        let refreshed = try await oauth.refresh(using: Token("r1/+= &x"))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/oauth/token")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.bodyString == "grant_type=refresh_token&refresh_token=r1%2F%2B%3D+%26x&client_id=mobile+app&scope=openid+offline_access")
        #expect(refreshed.response.expiresIn == 300)
        #expect(refreshed.response.refreshToken.map { $0.withRevealedBytes { String(decoding: $0, as: UTF8.self) } } == "r2")
        #expect(refreshed.response.identity == nil, "an opaque refresh response carries no identity")
        #expect(refreshed.serverDate != nil, "the Date header is read")
    }

    @Test func goTrueEscapesTheTokenInsideJSON() async throws {
        server.enqueue(.json(#"{"access_token":"a","token_type":"bearer","expires_in":3600,"refresh_token":"b"}"#))
        _ = try await GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon").refresh(using: Token(#"quote"back\slash"#))
        let body = try #require(server.requests.first?.body)
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: String])
        #expect(object == ["refresh_token": #"quote"back\slash"#])
    }

    @Test func rateLimitsUseTheRetryAfterHeaderWhenTheBodyHasNone() async throws {
        server.enqueue(.json(status: 429, #"{"error":"rate_limit_exceeded"}"#, headers: [("Retry-After", "17")]))
        await #expect(throws: RefreshError.rateLimited(retryAfter: 17)) { try await oauth.refresh(using: Token("r")) }
    }

    @Test func aMalformedSuccessIsAnInvalidResponseNotASignOut() async throws {
        server.enqueue(.json(#"{"token_type":"bearer"}"#))
        await #expect(throws: RefreshError.invalidResponse("token response has no access_token")) { try await oauth.refresh(using: Token("r")) }
    }

    @Test func aBadRequestThatDoesNotRejectTheGrantKeepsTheSession() async throws {
        server.enqueue(.json(status: 400, #"{"error":"unsupported_grant_type"}"#))
        await #expect(throws: RefreshError.refusedUnexplained(status: 400, error: "unsupported_grant_type")) { try await oauth.refresh(using: Token("r")) }
    }

    @Test func noServerAtAllIsANetworkError() async throws {
        server.stop()
        let error = await #expect(throws: RefreshError.self) { try await oauth.refresh(using: Token("r")) }
        guard case .network? = error else { Issue.record("expected network, got \(String(describing: error))"); return }
        #expect(error.map { !$0.endsSession } ?? false)
    }
}
