import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRefreshTransport {
    /// The answer to a request that returns no tokens (sign-out, revocation): the status and
    /// body, for the terminator to classify (`AuthErrorBody.classifyLogout`, `classifyRevocation`),
    /// or the sign-out outcome when there was no answer.
    enum StatusAnswer: Sendable {
        case answered(status: Int, body: Data)
        case unanswered(ServerSignOut)
    }

    /// Sends a sign-out or revocation request. Never throws: no answer is `.failed`.
    func sendForStatus(_ url: URL, headers: [String: String], body: Data?) async -> StatusAnswer {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = self.session, sent = request
        do {
            let (data, response) = try await Deadline.run(seconds: timeout) { try await session.data(for: sent) }
            guard let http = response as? HTTPURLResponse else { return .unanswered(.failed("not an HTTP response")) }
            // An error body is small; a longer one is not read further than this.
            return .answered(status: http.statusCode, body: data.prefix(16 * 1024))
        } catch is Deadline.Passed {
            return .unanswered(.failed("no answer within \(timeout) s"))
        } catch {
            return .unanswered(.failed((error as? URLError).map { "URLError \($0.code.rawValue)" } ?? "request failed"))
        }
    }
}
