import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRefreshTransport {
    /// Sends a request whose answer is only a status (sign-out, revocation) and classifies it:
    /// 2xx ended; 401, 403, 404 already ended; anything else, or no answer, failed.
    func sendForStatus(_ url: URL, headers: [String: String], body: Data?) async -> ServerSignOut {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let session = self.session, sent = request
        do {
            let (_, response) = try await Deadline.run(seconds: timeout) { try await session.data(for: sent) }
            guard let http = response as? HTTPURLResponse else { return .failed("not an HTTP response") }
            switch http.statusCode {
            case 200..<300: return .ended
            case 401, 403, 404: return .alreadyEnded
            default: return .failed("the server answered \(http.statusCode)")
            }
        } catch is Deadline.Passed {
            return .failed("no answer within \(timeout) s")
        } catch {
            return .failed((error as? URLError).map { "URLError \($0.code.rawValue)" } ?? "request failed")
        }
    }
}
