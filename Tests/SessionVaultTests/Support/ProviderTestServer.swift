import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An OpenID provider we did not write, on 127.0.0.1, behind a harness script of ours that plays
/// the browser (`authorize`) and tells what the provider holds:
/// - `glewlwyd`: Glewlwyd 2.7 (Debian's package) run by Tests/Servers/glewlwyd/serve.py: PKCE
///   required, rolling one-use refresh tokens, 60 s access tokens, DPoP with mandatory nonces,
///   revocation authenticated by the access token, end-session (`refreshTokens`, `endSession`);
/// - `idpyoidc`: idpyoidc 5.0 (PyPI) in Tests/Servers/idpyoidc/serve.py: PKCE, rotation, JWT or
///   opaque access tokens, RFC 7009 revocation (`expireRefreshTokens`).
final class ProviderTestServer: @unchecked Sendable {
    // Sendable: set once in `start`, only stopped afterwards.
    private let server: PythonTestServer
    let harness: URL
    let info: Info

    /// What `GET /harness/info` says: the provider's endpoints and the test client.
    struct Info: Decodable, Sendable {
        let issuer: String
        let authorization_endpoint: String
        let token_endpoint: String
        let userinfo_endpoint: String
        let revocation_endpoint: String
        let end_session_endpoint: String?
        let client_id: String
        let redirect_uri: String
        let post_logout_redirect_uri: String?
        let scope: String
        let subject: String
        /// idpyoidc: the `sub` its JWT access tokens carry (its user database's id).
        let database_subject: String?
    }

    /// One row of Glewlwyd's refresh-token table.
    struct RefreshTokenRow: Decodable {
        let enabled: Int
        let jkt: String?
    }

    private init(server: PythonTestServer, harness: URL, info: Info) {
        self.server = server
        self.harness = harness
        self.info = info
    }

    /// The providers, by their harness script.
    enum Provider: String {
        case glewlwyd = "glewlwyd/serve.py"
        case idpyoidc = "idpyoidc/serve.py"
    }

    static func start(_ provider: Provider, _ options: [String] = []) async throws -> ProviderTestServer {
        let server = try await PythonTestServer.start(provider.rawValue, arguments: options, readyWithin: 60)
        do {
            let harness = try server.baseURL()
            let data = try await request(harness.appendingPathComponent("harness/info"))
            return ProviderTestServer(server: server, harness: harness, info: try JSONDecoder().decode(Info.self, from: data))
        } catch {
            await server.stop()
            throw error
        }
    }

    func stop() async { await server.stop() }

    /// Runs `body` with a fresh provider, stopping it afterwards.
    static func with<R>(
        _ provider: Provider, _ options: [String] = [], _ body: (ProviderTestServer) async throws -> R
    ) async throws -> R {
        let server = try await start(provider, options)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw OAuthTestServerError.notReady(seconds: 0) }
        return url
    }

    /// The browser's part: alice signs in and grants the client's scopes; the redirect back to
    /// the app (with `code` and `state`), not followed.
    func authorize(_ authorizationURL: URL) async throws -> URL {
        let body = try JSONSerialization.data(withJSONObject: ["url": authorizationURL.absoluteString])
        let data = try await Self.request(harness.appendingPathComponent("harness/authorize"), body: body)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let redirect = object?["redirect"] as? String, let url = URL(string: redirect) else {
            throw HarnessError(detail: String(decoding: data, as: UTF8.self))
        }
        return url
    }

    /// idpyoidc: every refresh token issued so far becomes inactive (its expiry moved into the
    /// past).
    func expireRefreshTokens() async throws {
        _ = try await Self.request(harness.appendingPathComponent("harness/expire-refresh-tokens"), body: Data("{}".utf8))
    }

    /// Glewlwyd: every refresh token it holds for the test client.
    func refreshTokens() async throws -> [RefreshTokenRow] {
        let data = try await Self.request(harness.appendingPathComponent("harness/refresh-tokens"))
        struct Rows: Decodable { let refresh_tokens: [RefreshTokenRow] }
        return try JSONDecoder().decode(Rows.self, from: data).refresh_tokens
    }

    /// Glewlwyd: opens an end-session URL as alice's browser would and confirms the sign-out on
    /// Glewlwyd's page: the status of the URL itself, and whether her Glewlwyd session still
    /// lives afterwards (`GET /api/profile_list`: 200 alive, 401 gone).
    func endSession(_ url: URL) async throws -> (status: Int, sessionStatus: Int) {
        let body = try JSONSerialization.data(withJSONObject: ["url": url.absoluteString, "confirm": true])
        let data = try await Self.request(harness.appendingPathComponent("harness/end-session"), body: body)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((object?["status"] as? Int) ?? 0, (object?["session_status"] as? Int) ?? 0)
    }

    /// Glewlwyd: the tail of its log, for a failure's message.
    func logTail() async -> String {
        guard let url = URL(string: harness.absoluteString + "/harness/log?lines=40"),
            let data = try? await Self.request(url)
        else { return "(no log)" }
        return String(decoding: data, as: UTF8.self)
    }

    struct HarnessError: Error, CustomStringConvertible {
        let detail: String
        var description: String { "the provider's harness answered: \(detail.prefix(600))" }
    }

    /// A GET (no body) or a POST of JSON to the harness or the provider.
    static func request(_ url: URL, body: Data? = nil, headers: [String: String] = [:]) async throws -> Data {
        let (data, status) = try await send(url, body: body, headers: headers)
        guard (200..<300).contains(status) else { throw HarnessError(detail: "\(status) \(String(decoding: data, as: UTF8.self))") }
        return data
    }

    static func send(_ url: URL, method: String? = nil, body: Data? = nil, headers: [String: String] = [:]) async throws -> (Data, Int) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 30)
        request.httpMethod = method ?? (body == nil ? "GET" : "POST")
        if body != nil, headers["Content-Type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
}
