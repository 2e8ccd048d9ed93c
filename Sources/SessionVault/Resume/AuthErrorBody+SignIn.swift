import Foundation

extension AuthErrorBody {
    /// A delay stated only in words, as seed 001's GoTrue contract does: "Please try again in 60
    /// seconds", "Retry after 60 seconds". The first number followed by "second(s)" in any
    /// message; nil when there is none or it does not fit.
    var retryAfterInText: TimeInterval? {
        for message in messages {
            let words = message.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber })
            for (index, word) in words.enumerated() where index + 1 < words.count {
                guard words[index + 1].hasPrefix("second"), word.count <= 9, let seconds = Int(word) else { continue }
                return TimeInterval(seconds)
            }
        }
        return nil
    }

    /// The token endpoint's refusal of a sign-in (password grant or code exchange), classified.
    /// - Parameter codeExchange: an `invalid_grant` then refuses the code, not the credentials.
    static func classifySignInFailure(status: Int, body: Data, retryAfterHeader: String?, codeExchange: Bool) -> SignInError {
        let parsed = AuthErrorBody(body)
        let code = (parsed.error ?? parsed.errorCode)?.lowercased()
        switch status {
        case 429:
            let header = retryAfterHeader.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
            let delay = boundedDelay(parsed.retryAfter) ?? boundedDelay(header) ?? boundedDelay(parsed.retryAfterInText) ?? 60
            return .rateLimited(retryAfter: delay)
        case 400, 401, 403, 422:
            if let client = parsed.clientErrorCode { return .clientRejected(error: client) }
            if code == "invalid_grant" || parsed.errorCode?.lowercased() == "invalid_credentials" {
                return codeExchange ? .codeRejected : .invalidCredentials
            }
            // GoTrue answers a missing or wrong `apikey` with 401 and no OAuth code.
            if status == 401 && code == nil { return .clientRejected(error: "unauthorized") }
            return .rejected(error: SignInError.errorCode(parsed.errorCode ?? parsed.error))
        default:
            return .serverError(status: status)
        }
    }
}
