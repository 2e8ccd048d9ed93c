import Foundation

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
            let text = AuthErrorBody(body).allTextLowercased
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
