import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one HTTP exchange both shipped refreshers make: POST a body, classify the answer.
struct HTTPRefreshTransport: Sendable {
    let session: URLSession
    let timeout: TimeInterval

    func post(_ url: URL, headers: [String: String], body: Data) async throws(RefreshError) -> RefreshedTokens {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let data: Data
        let response: URLResponse
        let session = self.session, sent = request
        do {
            // The deadline is enforced here: URLSession on Linux does not keep `timeout`.
            (data, response) = try await Deadline.run(seconds: timeout) { try await session.data(for: sent) }
        } catch is Deadline.Passed {
            throw .network("no answer within \(timeout) s")
        } catch {
            // URLError descriptions name the URL and the failure, not the body.
            throw .network((error as? URLError).map { "URLError \($0.code.rawValue)" } ?? "request failed")
        }
        guard let http = response as? HTTPURLResponse else { throw .network("not an HTTP response") }
        let serverDate = http.value(forHTTPHeaderField: "Date").flatMap(Self.parseHTTPDate)
        guard (200..<300).contains(http.statusCode) else {
            throw AuthErrorBody.classifyRefreshFailure(status: http.statusCode, body: data, retryAfterHeader: http.value(forHTTPHeaderField: "Retry-After"))
        }
        do {
            return RefreshedTokens(response: try TokenResponse(json: data), serverDate: serverDate)
        } catch {
            throw .invalidResponse(error.description)
        }
    }

    /// RFC 7231 IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
