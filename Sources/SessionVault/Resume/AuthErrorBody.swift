import Foundation

/// The error body of an auth server or API, in any of the shapes we serve: OAuth 2.0
/// (`error`, `error_description`), GoTrue (`error_code`, `msg`), and the app contract
/// (`{"success":false,"error":{"code":"SESSION_EXPIRED","message":…}}`).
package struct AuthErrorBody {
    var error: String?
    var errorCode: String?
    var messages: [String] = []
    var retryAfter: TimeInterval?

    /// Whether the body is a JSON object: the shape an authorization server's error takes
    /// (RFC 6749 §5.2, GoTrue, the 401 contract). An HTML page, plain text or an empty body is
    /// not: such an answer comes from whatever stands in front of the server, or names nothing.
    var isJSONObject = false
    /// Whether the body is empty (or only white space).
    var isEmpty = false

    init(_ data: Data) {
        isEmpty = data.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        // Only a JSON object is read: the words of an HTML page or a proxy's text never count as
        // an error the server named (a CDN page saying "session expired" ends nothing).
        guard let object = (try? JSONSerialization.jsonObject(with: data.prefix(64 * 1024))) as? [String: Any] else { return }
        isJSONObject = true
        if let nested = object["error"] as? [String: Any] {
            errorCode = nested["code"] as? String
            messages += [nested["message"] as? String].compactMap { $0 }
        } else {
            error = object["error"] as? String
        }
        errorCode = errorCode ?? (object["error_code"] as? String) ?? (object["code"] as? String)
        messages += ["error_description", "msg", "message"].compactMap { object[$0] as? String }
        if let seconds = object["retry_after"] as? NSNumber { retryAfter = seconds.doubleValue }
    }

    /// Case-insensitive patterns that mean "the session is over and the user should be told".
    static let sessionExpiredPatterns = [
        "jwt expired", "token expired", "session expired", "refresh_token_not_found",
        "invalid refresh token", "session_expired", "session_not_found"
    ]

    private var allText: [String] { ([error, errorCode].compactMap { $0 } + messages).map { $0.lowercased() } }

    var saysSessionExpired: Bool {
        allText.contains { text in Self.sessionExpiredPatterns.contains { text.contains($0) } }
    }

    /// Case-insensitive patterns that say only the access token expired ("JWT expired" from
    /// PostgREST, "token expired", "token is expired"): a refresh may fix it.
    static let accessTokenExpiredPatterns = ["jwt expired", "token expired", "token is expired", "token has expired"]

    var saysAccessTokenExpired: Bool {
        allText.contains { text in
            Self.accessTokenExpiredPatterns.contains { text.contains($0) } && !text.contains("refresh token") && !text.contains("refresh_token")
        }
    }

    var saysAuthRequired: Bool { allText.contains { $0.contains("auth_required") } }

    var saysInvalidGrant: Bool {
        allText.contains { $0 == "invalid_grant" || $0.contains("refresh_token_already_used") || $0.contains("refresh_token_not_found") }
    }

    /// RFC 6749 §5.2 errors that blame the client, not the grant: the app is misconfigured.
    var clientErrorCode: String? {
        guard let code = error?.lowercased(), code == "invalid_client" || code == "unauthorized_client" else { return nil }
        return code
    }

    /// The longest delay a server may ask for: a day.
    static let longestRetryDelay: TimeInterval = 86_400

    /// A delay the server asked for, made usable: nil when it is no number of seconds at all
    /// (NaN, infinite), else clamped to zero up to `longestRetryDelay`. Why: it comes from
    /// outside (the body's `retry_after`, the `Retry-After` header) and goes on to
    /// `ResumeOutcome.offline`, where an app schedules its retry with it.
    static func boundedDelay(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds.isFinite else { return nil }
        return min(max(seconds, 0), longestRetryDelay)
    }

    /// GoTrue's `error_code`s that are its verdict on the refresh token or its session.
    static let grantVerdictCodes: [String: RefreshError] = [
        "refresh_token_not_found": .invalidGrant, "refresh_token_already_used": .invalidGrant,
        "session_not_found": .sessionExpired, "session_expired": .sessionExpired
    ]

    /// The authorization server's own verdict on the grant, when this body states one: RFC 6749's
    /// `invalid_grant`, the 401 contract's `SESSION_EXPIRED` and `AUTH_REQUIRED`, GoTrue's codes
    /// for a refresh token or session it no longer has. Only these end a session, at whatever
    /// status they come; nil for everything else (no words of a message are read).
    var grantVerdict: RefreshError? {
        guard isJSONObject else { return nil }
        switch errorCode?.uppercased() {
        case "SESSION_EXPIRED": return .sessionExpired
        case "AUTH_REQUIRED": return .authRequired
        default: break
        }
        if error?.lowercased() == "invalid_grant" { return .invalidGrant }
        if let code = errorCode?.lowercased(), let verdict = Self.grantVerdictCodes[code] { return verdict }
        return nil
    }

    /// The refresh endpoint's answer, classified. Only the server's verdict on the grant ends the
    /// session (`grantVerdict`); a refusal of the DPoP proof is about the proof, a client error
    /// about the client; a 400, 401 or 403 that names no error the library knows is
    /// `.refusedUnexplained` when it has the server's shape (empty, or a JSON OAuth `error`);
    /// anything else is `.serverUnavailable` (an HTML or text page from something in front of
    /// the server, another JSON shape, another status).
    /// - Parameter wwwAuthenticate: the answer's challenge, read for a DPoP proof error.
    package static func classifyRefreshFailure(
        status: Int, body: Data, retryAfterHeader: String?, wwwAuthenticate: String? = nil
    ) -> RefreshError {
        let parsed = AuthErrorBody(body)
        if status == 429 {
            let header = retryAfterHeader.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
            return .rateLimited(retryAfter: boundedDelay(parsed.retryAfter) ?? boundedDelay(header) ?? 60)
        }
        if let verdict = parsed.grantVerdict { return verdict }
        guard (400..<500).contains(status) else { return .serverUnavailable(status: status) }
        if let proofError = proofError(body: parsed, wwwAuthenticate: wwwAuthenticate) { return .proofRejected(error: proofError) }
        // These name the client or the request's scope, not the token (a 401 invalid_client must
        // not end a session whose refresh token is still valid).
        if let code = parsed.clientErrorCode { return .clientRejected(error: code) }
        if parsed.error?.lowercased() == "invalid_scope" { return .invalidScope }
        // A refusal the server made: 400, 401 or 403 with an empty body or an OAuth error of its
        // own. Another 4xx (a route gone: 404 `{"detail":"Not Found"}`), or another JSON shape
        // (a gateway's `{"message":"Forbidden"}`), is something failing, never a refusal.
        if [400, 401, 403].contains(status), parsed.isEmpty || parsed.error != nil {
            return .refusedUnexplained(status: status, error: parsed.error.map { SignInError.errorCode($0) })
        }
        return .serverUnavailable(status: status)
    }

    /// RFC 9449's errors about a DPoP proof (`invalid_dpop_proof`, `use_dpop_nonce`), as the
    /// body's `error` or a `DPoP` challenge's `error` parameter.
    static func proofError(body: AuthErrorBody, wwwAuthenticate: String?) -> String? {
        let codes: Set = ["invalid_dpop_proof", "use_dpop_nonce"]
        if let error = body.error?.lowercased(), codes.contains(error) { return error }
        guard let header = wwwAuthenticate else { return nil }
        for challenge in AuthenticationChallenge.parse(header) where challenge.scheme == "dpop" {
            if let error = challenge.parameters["error"]?.lowercased(), codes.contains(error) { return error }
        }
        return nil
    }
}

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
            // Some servers name the refused code itself (Glewlwyd: 403 `invalid_code`).
            if codeExchange, code == "invalid_code" { return .codeRejected }
            // GoTrue answers a missing or wrong `apikey` with 401 and no OAuth code.
            if status == 401 && code == nil { return .clientRejected(error: "unauthorized") }
            return .rejected(error: SignInError.errorCode(parsed.errorCode ?? parsed.error))
        default:
            return .serverError(status: status)
        }
    }
}

extension AuthErrorBody {
    /// GoTrue `POST /logout`, classified by what the server holds afterwards.
    ///
    /// Only an answer that names the session or user as unknown is `.alreadyEnded`: GoTrue
    /// answers an access token it will not accept (expired, bad signature) with 401 or 403 too,
    /// before it looks at the session, and then the session lives on (`.accessTokenRejected`).
    static func classifyLogout(status: Int, body: Data) -> ServerSignOut {
        switch status {
        case 200..<300:
            return .ended
        case 404:
            return .alreadyEnded
        case 401, 403:
            let parsed = AuthErrorBody(body)
            // A page from something in front of the server says nothing about the token.
            guard parsed.isJSONObject else { return .failed("the server answered \(status)") }
            let text = parsed.allTextLowercased
            let gone = ["session_not_found", "user_not_found", "session not found", "user not found", "does not exist"]
            return text.contains { line in gone.contains { line.contains($0) } } ? .alreadyEnded : .accessTokenRejected
        default:
            return .failed("the server answered \(status)")
        }
    }

    /// RFC 7009 revocation. 200 is the only answer that leaves nothing to revoke (the server
    /// answers 200 for a token it does not know too, §2.2). A refused client (401, or
    /// `invalid_client` / `unauthorized_client`) revoked nothing.
    static func classifyRevocation(status: Int, body: Data) -> ServerSignOut {
        if (200..<300).contains(status) { return .ended }
        let parsed = AuthErrorBody(body)
        if let code = parsed.clientErrorCode { return .clientRejected(code) }
        if status == 401 { return .clientRejected("status 401") }
        if let error = parsed.error, error.count <= 64, error.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") }) {
            return .failed("the server answered \(status) \(error)")
        }
        return .failed("the server answered \(status)")
    }

    /// Every text of the body, lowercased (error, code, messages).
    var allTextLowercased: [String] { ([error, errorCode].compactMap { $0 } + messages).map { $0.lowercased() } }
}
