import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SessionVault

/// django-oauth-toolkit, started by a test on 127.0.0.1 (a free port) from the virtual
/// environment `Tests/Servers/oauth/setup.sh` creates, and stopped by it.
///
/// Configured (Tests/Servers/oauth/harness/settings.py) with rotating refresh tokens, reuse
/// protection (a reused refresh token revokes its whole family) and a short access token
/// lifetime; one public client allowed the password grant, one user.
final class OAuthTestServer: @unchecked Sendable {
    // Sendable: `server` is set once in `start` and only stopped afterwards.
    private let server: PythonTestServer
    var port: Int { server.port }
    /// The public client serve.py registers (password grant; refresh allowed with it).
    static let clientID = "sessionvault-test-client"
    static let username = "pat"
    static let password = "correct horse battery staple"
    var clientID: String { Self.clientID }
    var username: String { Self.username }
    var password: String { Self.password }

    let baseURL: URL
    var tokenEndpoint: URL { baseURL.appendingPathComponent("o/token/") }
    var authorizationEndpoint: URL { baseURL.appendingPathComponent("o/authorize/") }
    /// The public client serve.py registers for the authorization-code grant (PKCE, loopback
    /// redirect `http://127.0.0.1/callback` on any port, RS256 ID tokens).
    var pkceClientID: String { clientID + "-pkce" }
    /// The `iss` of its ID tokens.
    var issuer: String { baseURL.absoluteString + "/o" }
    var revocationEndpoint: URL { baseURL.appendingPathComponent("o/revoke_token/") }

    /// The package root, from this file's place in it.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private init(server: PythonTestServer, baseURL: URL) {
        self.server = server
        self.baseURL = baseURL
    }

    /// Starts a fresh server (fresh database) and returns once it listens.
    /// - Parameter accessTokenSeconds: the server's access token lifetime.
    static func start(accessTokenSeconds: Int = 5) async throws -> OAuthTestServer {
        let server = try await PythonTestServer.start(
            "oauth/serve.py", arguments: [clientID, username, password],
            environment: ["OAUTH_HARNESS_ACCESS_SECONDS": String(accessTokenSeconds)],
            readyWithin: 90)
        do {
            return OAuthTestServer(server: server, baseURL: try server.baseURL())
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the server and waits for it to exit.
    func stop() async { await server.stop() }

    /// Runs `body` with a fresh server and stops it afterwards, whether `body` threw or not.
    static func with<R>(accessTokenSeconds: Int = 5, _ body: (OAuthTestServer) async throws -> R) async throws -> R {
        let server = try await start(accessTokenSeconds: accessTokenSeconds)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    // MARK: Requests the app (or an attacker) makes directly

    /// The first tokens, by the password grant (RFC 6749 §4.3): the raw response body.
    func passwordGrant(scope: String = "read") async throws -> Data {
        let form = ["grant_type": "password", "username": username, "password": password, "client_id": clientID, "scope": scope]
        return try await post(tokenEndpoint, form: form, expecting: 200, what: "the password grant")
    }

    /// A refresh sent straight to the server, outside any vault: how a stolen or stale copy of a
    /// refresh token is replayed. Returns the status and the body.
    func refreshDirectly(_ refreshToken: String) async throws -> (status: Int, body: Data) {
        try await send(tokenEndpoint, form: ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": clientID])
    }

    /// RFC 7009 revocation of `token` (sent from its locked bytes). Returns the status.
    func revoke(_ token: Token, hint: String = "refresh_token") async throws -> Int {
        var body = Data("token=".utf8)
        token.withRevealedBytes { body.append(contentsOf: FormText.encoded($0)) }
        body.append(Data(("&token_type_hint=" + hint + "&client_id=").utf8))
        body.append(contentsOf: FormText.encoded(Array(clientID.utf8)))
        return try await send(revocationEndpoint, body: body).status
    }

    /// How many token requests the server received, by grant type (and "revoke").
    func requestCounts() async throws -> [String: Int] {
        let (data, response) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("harness/counts"))
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw OAuthTestServerError.unexpectedStatus("the request counts", status) }
        guard let counts = try JSONSerialization.jsonObject(with: data) as? [String: Int] else { throw OAuthTestServerError.notJSON("the request counts") }
        return counts
    }

    private func post(_ url: URL, form: [String: String], expecting expected: Int, what: String) async throws -> Data {
        let (status, data) = try await send(url, form: form)
        guard status == expected else { throw OAuthTestServerError.unexpectedStatus(what, status) }
        return data
    }

    private func send(_ url: URL, form: [String: String]) async throws -> (status: Int, body: Data) {
        let text = form.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(String(decoding: FormText.encoded(Array($0.value.utf8)), as: UTF8.self))" }
            .joined(separator: "&")
        return try await send(url, body: Data(text.utf8))
    }

    private func send(_ url: URL, body: Data) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
