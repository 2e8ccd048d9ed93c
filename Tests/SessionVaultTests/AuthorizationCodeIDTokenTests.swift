import CSodium
import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// The authorization-code sign-in, the parts a real provider always gets right: an ID token whose
/// `nonce`, `iss`, `aud`/`azp` or `exp` do not belong to this sign-in (a token endpoint on
/// 127.0.0.1 answers crafted ID tokens), and the code verifier as the token endpoint receives it:
/// RFC 7636's length and alphabet, its S256 challenge, and in no URL, log line, error or
/// description.
@Suite("Authorization code: ID token checks and the verifier", .timeLimit(.minutes(2)))
struct AuthorizationCodeIDTokenTests {
    let fixture = TestVault()
    static let issuer = "https://issuer.example"
    static let clientID = "app-client"

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// An ID token with `claims` (unsigned: the library does not verify signatures, and says so).
    static func idToken(_ claims: [String: Any]) throws -> String {
        let header = base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return "\(header).\(payload).c2lnbmF0dXJl"
    }

    static func tokenBody(idToken: String?) -> String {
        let id = idToken.map { #","id_token":"\#($0)""# } ?? ""
        return #"{"access_token":"code-access","token_type":"Bearer","expires_in":3600,"refresh_token":"code-refresh","scope":"openid"\#(id)}"#
    }

    func flow(_ server: ScriptedHTTPServer) -> AuthorizationCodeFlow {
        AuthorizationCodeFlow(
            authorizationEndpoint: server.baseURL.appendingPathComponent("authorize"),
            tokenEndpoint: server.baseURL.appendingPathComponent("token"), clientID: Self.clientID,
            redirectURI: URL(string: "com.example.app:/oauth")!, scope: "openid profile", issuer: Self.issuer, timeout: 5)
    }

    static func redirect(for request: AuthorizationRequest, code: String = "the-code") -> URL {
        URL(string: "com.example.app:/oauth?code=\(code)&state=\(request.state)")!
    }

    func signInError(_ manager: ResumeManager, _ request: AuthorizationRequest) async -> SignInError? {
        do {
            _ = try await manager.signIn(completing: request, redirect: Self.redirect(for: request))
            return nil
        } catch {
            return error
        }
    }

    enum Change: String, CaseIterable, Sendable {
        case none, otherNonce, noNonce, otherIssuer, otherAudience, expired, severalAudiencesWithoutAZP, otherAZP, noIDToken
    }

    @Test("an ID token for another sign-in is refused and nothing is stored", arguments: Change.allCases)
    func idTokenChecks(change: Change) async throws {
        let server = try ScriptedHTTPServer()
        let manager = ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: OAuth2Refresher(tokenEndpoint: server.baseURL, clientID: Self.clientID), clock: fixture.clock.function)
        let request = try flow(server).authorizationRequest()
        let nonce = try #require(request.nonce)
        var claims: [String: Any] = [
            "sub": "user-7", "iss": Self.issuer, "aud": Self.clientID, "nonce": nonce,
            "exp": fixture.clock.now.timeIntervalSince1970 + 600, "iat": fixture.clock.now.timeIntervalSince1970
        ]
        switch change {
        case .none, .noIDToken: break
        case .otherNonce: claims["nonce"] = "someone-elses-nonce"
        case .noNonce: claims["nonce"] = nil
        case .otherIssuer: claims["iss"] = "https://evil.example"
        case .otherAudience: claims["aud"] = "another-client"
        case .expired: claims["exp"] = fixture.clock.now.timeIntervalSince1970 - 120
        case .severalAudiencesWithoutAZP: claims["aud"] = [Self.clientID, "another-client"]
        case .otherAZP: claims["azp"] = "another-client"
        }
        server.enqueue(.json(Self.tokenBody(idToken: change == .noIDToken ? nil : try Self.idToken(claims))))
        let error = await signInError(manager, request)
        switch change {
        case .none:
            #expect(error == nil)
            #expect(try await manager.vault.currentSession()?.identity.subject == "user-7")
        case .noIDToken:
            // `openid` granted, no ID token to check the nonce against.
            guard case .idTokenRejected = error else { Issue.record("no ID token for a granted openid scope is refused"); return }
            #expect(try await manager.vault.currentSession() == nil)
        default:
            guard case .idTokenRejected(let detail) = error else { Issue.record("\(change) is refused as idTokenRejected"); return }
            let claim =
                [
                    "otherNonce": "nonce", "noNonce": "nonce", "otherIssuer": "iss", "otherAudience": "aud", "expired": "exp",
                    "severalAudiencesWithoutAZP": "azp", "otherAZP": "azp"
                ][change.rawValue] ?? "?"
            #expect(detail.hasPrefix(claim), "names the claim")
            #expect(try await manager.vault.currentSession() == nil)
        }
    }

    /// `openid` requested and the answer's `scope` left out (granted as requested, RFC 6749
    /// §5.1): a missing ID token was accepted; `"id_token": null` or a number skipped every check.
    @Test(arguments: [
        #"{"access_token":"a","token_type":"Bearer","expires_in":3600,"refresh_token":"r"}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":3600,"refresh_token":"r","id_token":null}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":3600,"refresh_token":"r","id_token":12345}"#,
        #"{"access_token":"a","token_type":"Bearer","expires_in":3600,"refresh_token":"r","scope":"openid","id_token":{"sub":"x"}}"#
    ])
    func anIDTokenThatIsMissingOrNoStringIsRefused(body: String) async throws {
        let server = try ScriptedHTTPServer()
        let manager = ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: OAuth2Refresher(tokenEndpoint: server.baseURL, clientID: Self.clientID), clock: fixture.clock.function)
        let request = try flow(server).authorizationRequest()
        server.enqueue(.json(body))
        let error = await signInError(manager, request)
        guard case .idTokenRejected = error else { Issue.record("accepted: \(String(describing: error))"); return }
        #expect(try await manager.vault.currentSession() == nil)
    }

    @Test("the verifier: 64 unreserved characters, S256 of it is the challenge, fresh per request, in no URL, log, error or description")
    func theVerifier() async throws {
        let store = RecordingLogHandler.Store()
        var logger = Logger(label: "trace") { _ in RecordingLogHandler(store: store) }
        logger.logLevel = .trace
        let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys, clock: fixture.clock.function, logger: logger)
        let server = try ScriptedHTTPServer()
        let manager = ResumeManager(vault: vault, refresher: OAuth2Refresher(tokenEndpoint: server.baseURL, clientID: Self.clientID))
        let flow = flow(server)
        let first = try flow.authorizationRequest()
        let second = try flow.authorizationRequest()
        var described = [first.description, String(reflecting: first), first.url.absoluteString, second.url.absoluteString]

        // The server refuses the first code (replayed elsewhere); the second goes through.
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid code"}"#))
        let refused = await signInError(manager, first)
        #expect(refused == .codeRejected)
        described += [refused.map { String(describing: $0) } ?? "", refused.map { String(reflecting: $0) } ?? ""]
        server.enqueue(
            .json(
                Self.tokenBody(
                    idToken: try Self.idToken([
                        "sub": "user-7", "iss": Self.issuer, "aud": Self.clientID, "nonce": second.nonce ?? "",
                        "exp": fixture.clock.now.timeIntervalSince1970 + 600
                    ]))))
        let session = try await manager.signIn(completing: second, redirect: Self.redirect(for: second))
        described += [session.description]

        let verifiers = try server.requests.map { request -> String in
            let form = try #require(URLComponents(string: "?" + request.bodyString)?.queryItems)
            #expect(form.first { $0.name == "grant_type" }?.value == "authorization_code")
            #expect(form.first { $0.name == "redirect_uri" }?.value == "com.example.app:/oauth")
            return try #require(form.first { $0.name == "code_verifier" }?.value)
        }
        #expect(verifiers.count == 2)
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for (verifier, request) in zip(verifiers, [first, second]) {
            #expect((43...128).contains(verifier.count) && verifier.allSatisfy { unreserved.contains($0) }, "RFC 7636 §4.1 length and alphabet")
            var digest = [UInt8](repeating: 0, count: 32)
            let bytes = Array(verifier.utf8)
            _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
            let challenge = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code_challenge" }?.value
            #expect(challenge == Self.base64URL(Data(digest)), "the challenge is S256 of the verifier sent")
        }
        #expect(verifiers[0] != verifiers[1] && first.state != second.state && first.nonce != second.nonce, "fresh per request")
        // Counts only: a failure must not print a verifier.
        let lines = store.all
        #expect(lines.contains { $0.contains("signed in") })
        #expect(lines.filter { line in verifiers.contains { line.contains($0) } }.count == 0, "a verifier reached a log line")
        #expect(described.filter { text in verifiers.contains { text.contains($0) } }.count == 0, "a verifier reached a URL, an error or a description")
        // Used up and zeroed: the request cannot be replayed through the library.
        #expect(first.verifier.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
        #expect(await signInError(manager, second) == .authorizationAlreadyUsed)
    }
}
