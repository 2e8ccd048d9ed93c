// The README's story run against a real authorization server (`scripts/readme-client.sh`
// starts django-oauth-toolkit and runs this): first launch, sign-in, launch, one API call,
// sign-out, launch. The README does not show this file: it is the check around its code.
// Arguments: <server URL> <client id> <username> <password> <empty directory for the vault>.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SessionVault

/// What the story needs from the test server: its URL, a client, a user.
struct StoryServer {
    let url: URL
    let clientID: String
    let username: String
    let password: String

    /// The browser's part (ASWebAuthenticationSession in an app): open the authorization URL as
    /// the logged-in user (the test server takes HTTP Basic credentials in place of its login
    /// form), approve the consent form, and hand back where the server redirects.
    func browserSignIn(_ url: URL) async throws -> URL {
        let browser = URLSession(configuration: .ephemeral, delegate: StopAtRedirect(), delegateQueue: nil)
        let login = "Basic " + Data("\(username):\(password)".utf8).base64EncodedString()
        var page = URLRequest(url: url)
        page.setValue(login, forHTTPHeaderField: "Authorization")
        let (html, _) = try await browser.data(for: page)
        var form = hiddenInputs(String(decoding: html, as: UTF8.self))
        form["allow"] = "Authorize"
        var approve = URLRequest(url: url)
        approve.httpMethod = "POST"
        approve.setValue(login, forHTTPHeaderField: "Authorization")
        approve.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        approve.httpBody = Data(form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&").utf8)
        let (_, response) = try await browser.data(for: approve)
        guard let location = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location"), let redirect = URL(string: location) else {
            throw StoryFailure("the consent form did not redirect")
        }
        return redirect
    }

    /// `name` → `value` of the page's hidden inputs (Django escapes only `&`, `<`, `>`, quotes).
    private func hiddenInputs(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for tag in html.components(separatedBy: "<input").dropFirst() {
            let tag = String(tag.prefix { $0 != ">" })
            guard tag.contains(#"type="hidden""#), let name = attribute("name", tag) else { continue }
            fields[name] = attribute("value", tag) ?? ""
        }
        return fields
    }

    private func attribute(_ name: String, _ tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]).replacingOccurrences(of: "&amp;", with: "&") }
    }

    /// How many token, refresh and revocation requests the server saw.
    func counts() async throws -> [String: Int] {
        let (body, _) = try await URLSession.shared.data(from: url.appendingPathComponent("harness/counts"))
        return try JSONDecoder().decode([String: Int].self, from: body)
    }
}

/// The browser stops at the redirect to the app, as ASWebAuthenticationSession does.
final class StopAtRedirect: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(request.url?.path == "/callback" ? nil : request)
    }
}

struct StoryFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func expect(_ condition: Bool, _ what: String) throws {
    guard condition else { throw StoryFailure(what) }
}

func runStory(_ server: StoryServer, directory: URL) async throws {
    // The app's loopback redirect (RFC 8252 §7.3); an app registers its own scheme or link.
    let layer = SessionLayer(directory: directory, authServer: server.url, clientID: server.clientID,
                             redirectURI: URL(string: "http://127.0.0.1:8765/callback")!)
    try expect(await layer.launch() == .login(expiredMessage: false), "a first launch shows the login screen")

    let request = try layer.startSignIn()
    guard case .home(let stored) = await layer.finishSignIn(request, redirect: try await server.browserSignIn(request.url)) else {
        throw StoryFailure("the sign-in through the browser went home")
    }
    guard case .home(let session) = await layer.launch() else { throw StoryFailure("a launch after sign-in goes home") }
    try expect(session.id == stored.id && session.identity.issuer == server.url.appendingPathComponent("o").absoluteString,
               "home with the signed-in session, its identity from the server's ID token")
    print("went home: \(session)")

    let answer = try await layer.get(server.url.appendingPathComponent("harness/me"))
    let me = try JSONDecoder().decode([String: String].self, from: answer)
    try expect(me["username"] == server.username, "the API answered for the signed-in user")
    print("API call answered for \(me["username"] ?? "?")")

    let serverSaid = try await layer.signOut()
    try expect(serverSaid == .ended, "the server revoked the refresh token")
    try expect(await layer.launch() == .login(expiredMessage: false), "after sign-out, the login screen")
    try expect(try await layer.manager.vault.currentSession() == nil, "nothing is left in the vault")
    let counts = try await server.counts()
    try expect(counts["authorization_code"] == 1 && counts["revoke"] == 1, "one code exchange and one revocation reached the server: \(counts)")
    // The server's access tokens live 5 s: used until they are due, never refreshed on every
    // call. Whether the story took longer than that on a busy machine decides
    // whether one refresh happened; more than one would be a storm.
    try expect((counts["refresh_token"] ?? 0) <= 1, "the short-lived access token was refreshed only when due: \(counts)")
    print("signed out: \(serverSaid); server saw \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
}

func runCheck() async -> Int32 {
    let arguments = CommandLine.arguments
    guard arguments.count == 6, let url = URL(string: arguments[1]) else {
        print("usage: \(arguments.first ?? "story") <server URL> <client id> <username> <password> <directory>")
        return 64
    }
    // serve.py registers `<client id>-pkce` for the authorization-code grant.
    let server = StoryServer(url: url, clientID: arguments[2] + "-pkce", username: arguments[3], password: arguments[4])
    do {
        try await runStory(server, directory: URL(fileURLWithPath: arguments[5]))
        print("README story: OK")
        return 0
    } catch {
        print("README story FAILED: \(error)")
        return 1
    }
}

exit(await runCheck())
