import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one HTTP exchange both shipped refreshers make: POST a body, classify the answer.
struct HTTPRefreshTransport: Sendable {
    let session: URLSession
    let timeout: TimeInterval

    func post(_ url: URL, headers: [String: String], body: Data) async throws(RefreshError) -> RefreshedTokens {
        let data: Data
        let http: HTTPURLResponse
        switch await exchange(url, headers: headers, body: body) {
        case .success(let answer): (data, http) = answer
        case .failure(let failure): throw .network(failure.detail)
        }
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

    /// Why an exchange got no HTTP answer, in words that never quote the request.
    struct NoAnswer: Error {
        let detail: String
    }

    /// The one POST both refreshes and sign-ins make, with the deadline enforced here: URLSession
    /// on Linux does not keep `timeout`. A failure is described by its URLError code only (a
    /// description could quote the request, whose body holds a secret).
    func exchange(_ url: URL, headers: [String: String], body: Data) async -> Result<(Data, HTTPURLResponse), NoAnswer> {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = self.session, sent = request
        do {
            let (data, response) = try await Deadline.run(seconds: timeout) { try await session.data(for: sent) }
            guard let http = response as? HTTPURLResponse else { return .failure(NoAnswer(detail: "not an HTTP response")) }
            return .success((data, http))
        } catch is Deadline.Passed {
            return .failure(NoAnswer(detail: "no answer within \(timeout) s"))
        } catch {
            return .failure(NoAnswer(detail: (error as? URLError).map { "URLError \($0.code.rawValue)" } ?? "request failed"))
        }
    }
}
