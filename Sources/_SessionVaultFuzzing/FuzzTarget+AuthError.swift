import Foundation
import SessionVault

extension FuzzTarget {
    /// Statuses the first input byte picks from: the ones the classifiers treat apart, and
    /// some they must pass through.
    static let authErrorStatuses = [400, 401, 403, 429, 500, 503, 200, 404]

    /// An error response from the refresh endpoint and from an app API, classified.
    ///
    /// Input: byte 0 picks the status, byte 1 is the length of the header text that follows
    /// (255: no header), the rest is the body. The header is used both as `Retry-After` and as
    /// `WWW-Authenticate`. What must hold: a rate limit's delay is finite, not negative and at
    /// most a day; statuses the classifiers do not own come back as "server unavailable" and
    /// "not an authentication failure"; only 401 leads to a refresh of the access token.
    public static func authError(_ input: [UInt8]) -> String? {
        guard input.count >= 2 else { return nil }
        let status = authErrorStatuses[Int(input[0]) % authErrorStatuses.count]
        let header: String?
        var bodyStart = 2
        if input[1] == 255 {
            header = nil
        } else {
            let end = min(input.count, 2 + Int(input[1]))
            header = String(decoding: input[2..<end], as: UTF8.self)
            bodyStart = end
        }
        let body = Data(input[bodyStart...])

        let refresh = AuthErrorBody.classifyRefreshFailure(status: status, body: body, retryAfterHeader: header)
        switch refresh {
        case .rateLimited(let retryAfter):
            guard retryAfter.isFinite, retryAfter >= 0, retryAfter <= 86_400 else {
                return "a rate limit answered a retry delay of \(retryAfter) s (must be finite, 0 to 86400)"
            }
        case .serverUnavailable(let answered):
            if answered != status { return "serverUnavailable(\(answered)) for status \(status)" }
        case .refusedUnexplained where !(400..<500).contains(status), .proofRejected where !(400..<500).contains(status):
            return "status \(status) classified as \(refresh)"
        case .refusedUnexplained(let answered, _) where answered != status:
            return "refusedUnexplained(\(answered)) for status \(status)"
        case .invalidGrant, .sessionExpired, .authRequired:
            // Only the server's JSON error body can end a session.
            if (try? JSONSerialization.jsonObject(with: body.prefix(64 * 1024))) as? [String: Any] == nil {
                return "a body that is no JSON object ended the session (\(refresh))"
            }
        default:
            if !(400..<500).contains(status) { return "status \(status) classified as \(refresh)" }
        }
        _ = refresh.description

        let verdict = APIFailureVerdict.classify(status: status, body: body, wwwAuthenticate: header)
        if status != 401 && status != 403 && verdict != .notAuthentication { return "API status \(status) classified as \(verdict)" }
        if status != 401 && verdict == .refreshAccessToken { return "API status \(status) led to a refresh" }
        return nil
    }
}
