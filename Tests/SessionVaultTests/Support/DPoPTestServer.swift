import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SessionVault

/// Tests/Servers/dpop/serve.py on 127.0.0.1 (a free port), from the django-oauth-toolkit venv
/// (its jwcrypto verifies the proofs): a GoTrue-shaped token endpoint whose tokens are bound to
/// the key that proved possession, and a resource that wants `Authorization: DPoP` with `ath`.
final class DPoPTestServer: @unchecked Sendable {
    // Sendable: set once in `start`, only stopped afterwards.
    private let server: PythonTestServer
    let baseURL: URL
    static let email = "alice@example.com"
    static let password = "correct horse battery staple"
    /// serve.py's user id (`uuid.UUID(int=29)`).
    static let subject = "00000000-0000-0000-0000-00000000001d"

    var authURL: URL { baseURL.appendingPathComponent("auth/v1") }
    var tokenEndpoint: URL { baseURL.appendingPathComponent("auth/v1/token") }
    var resourceURL: URL { baseURL.appendingPathComponent("resource") }

    private init(server: PythonTestServer, baseURL: URL) {
        self.server = server
        self.baseURL = baseURL
    }

    static func start(_ options: [String] = []) async throws -> DPoPTestServer {
        let server = try await PythonTestServer.start("dpop/serve.py", arguments: options, readyWithin: 60)
        do {
            return DPoPTestServer(server: server, baseURL: try server.baseURL())
        } catch {
            await server.stop()
            throw error
        }
    }

    func stop() async { await server.stop() }

    /// Runs `body` with a fresh server, stopping it afterwards.
    static func with<R>(_ options: [String] = [], _ body: (DPoPTestServer) async throws -> R) async throws -> R {
        let server = try await start(options)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// One request the server saw.
    struct Seen: Decodable, Equatable {
        let path: String
        let grant: String?
        let proof: Bool
        let jti: String?
        let nonce: String?
        let status: Int
        /// The proof's `iat`, read without verifying.
        let iat: Int64?
        /// RFC 7638 thumbprint of the proof's `jwk`, computed by jwcrypto.
        let jkt: String?
        /// The server's clock when the request came, in whole seconds.
        let serverTime: Int64?
    }

    /// Every request the server saw, in order.
    func log() async throws -> [Seen] {
        let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("harness/log"))
        return try JSONDecoder().decode([Seen].self, from: data)
    }

    /// Sets the server's clock to this machine's plus `offset` seconds from now on.
    func setClock(offset: TimeInterval) async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("harness/clock"))
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: ["offset": offset])
        let (_, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 204 else { throw OAuthTestServerError.unexpectedStatus("the clock harness", status) }
    }

    /// The token requests the server saw.
    func tokenRequests() async throws -> [Seen] { try await log().filter { $0.path == "/auth/v1/token" || $0.path == "/oauth/token" } }

    /// The RFC 6749 token endpoint (form bodies): code exchange and refresh.
    var oauthTokenEndpoint: URL { baseURL.appendingPathComponent("oauth/token") }
    var authorizationEndpoint: URL { baseURL.appendingPathComponent("authorize") }

    /// Opens an authorization URL as a browser would and returns where it redirects.
    func consent(_ url: URL) async throws -> URL {
        let (data, _) = try await URLSession.shared.data(from: url)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let text = object["redirect"] as? String,
            let redirect = URL(string: text)
        else { throw OAuthTestServerError.notJSON("the authorization redirect") }
        return redirect
    }

    /// A request sent straight to the server, outside the library (an attacker's, or a check).
    func send(_ request: URLRequest) async throws -> (status: Int, body: [String: Any]) {
        let (data, response) = try await URLSession.shared.data(for: request)
        let body = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, body)
    }

    /// A refresh with `refreshToken` sent directly, with `proof` as its DPoP header (or none).
    func refreshDirectly(_ refreshToken: String, proof: String?) async throws -> (status: Int, body: [String: Any]) {
        var components = URLComponents(url: tokenEndpoint, resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "grant_type", value: "refresh_token")]
        guard let url = components?.url else { throw OAuthTestServerError.notReady(seconds: 0) }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let proof { request.setValue(proof, forHTTPHeaderField: "DPoP") }
        request.httpBody = try JSONSerialization.data(withJSONObject: ["refresh_token": refreshToken])
        return try await send(request)
    }

    /// GET /resource as `getResource`, with the raw body, the `WWW-Authenticate` challenge and the
    /// `DPoP-Nonce` header.
    func getResourceRaw(accessToken: Token, proof: String) async throws -> (status: Int, body: Data, challenge: String?, nonce: String?, date: String?) {
        var request = URLRequest(url: resourceURL)
        request.setValue("DPoP " + accessToken.withRevealedBytes { String(decoding: $0, as: UTF8.self) }, forHTTPHeaderField: "Authorization")
        request.setValue(proof, forHTTPHeaderField: "DPoP")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (
            http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "WWW-Authenticate"), http?.value(forHTTPHeaderField: "DPoP-Nonce"),
            http?.value(forHTTPHeaderField: "Date")
        )
    }

    /// GET /resource with `Authorization: DPoP <token>` and `proof`.
    func getResource(accessToken: Token, proof: String) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: resourceURL)
        request.setValue("DPoP " + accessToken.withRevealedBytes { String(decoding: $0, as: UTF8.self) }, forHTTPHeaderField: "Authorization")
        request.setValue(proof, forHTTPHeaderField: "DPoP")
        return try await send(request)
    }
}
