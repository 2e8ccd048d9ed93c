import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the user's browser does between `AuthorizationRequest.url` and the redirect, against
/// django-oauth-toolkit: opens the authorization URL (logged in with HTTP Basic credentials, the
/// harness's stand-in for a login form), reads the consent form, submits it (approve or
/// cancel) and follows the redirect to the app's loopback listener, as a browser would.
struct TestBrowser {
    let username: String
    let password: String
    /// No cookies, no cache: each test's browser starts empty.
    let session = URLSession(configuration: .ephemeral)

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Opens `url` without logging in: where the server sends an anonymous user.
    func openAnonymously(_ url: URL) async throws -> URL? {
        let (_, response) = try await session.data(from: url)
        return response.url
    }

    /// Opens `url` logged in, submits the consent form (`approve` or cancel), and follows the
    /// redirect. Returns the final response's status (the loopback listener's answer).
    func authorize(_ url: URL, approve: Bool) async throws -> Int {
        var page = URLRequest(url: url)
        page.setValue(basic, forHTTPHeaderField: "Authorization")
        let (html, response) = try await session.data(for: page)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw Failure(description: "the consent page answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
        var fields = Self.hiddenInputs(String(decoding: html, as: UTF8.self))
        guard fields["client_id"] != nil else { throw Failure(description: "no consent form on the page") }
        // The "Authorize" button is the form's `allow` field; "Cancel" sends none.
        if approve { fields["allow"] = "Authorize" }
        var submit = URLRequest(url: url)
        submit.httpMethod = "POST"
        submit.setValue(basic, forHTTPHeaderField: "Authorization")
        submit.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        submit.httpBody = Data(
            fields.sorted { $0.key < $1.key }.map { key, value in
                "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
            }.joined(separator: "&").utf8)
        let (_, answer) = try await session.data(for: submit)
        return (answer as? HTTPURLResponse)?.statusCode ?? 0
    }

    private var basic: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    /// `name` → `value` of every `<input type="hidden" …>` on the page, entities decoded.
    static func hiddenInputs(_ html: String) -> [String: String] {
        var fields: [String: String] = [:]
        for tag in html.components(separatedBy: "<input").dropFirst() {
            let tag = String(tag.prefix { $0 != ">" })
            guard tag.contains(#"type="hidden""#), let name = attribute("name", in: tag) else { continue }
            fields[name] = attribute("value", in: tag) ?? ""
        }
        return fields
    }

    private static func attribute(_ name: String, in tag: String) -> String? {
        guard let start = tag.range(of: " \(name)=\"") else { return nil }
        let rest = tag[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#x27;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }
}
