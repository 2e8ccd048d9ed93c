import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SessionVault

/// Why an API call did not go through.
enum APICallError: Error {
    case signInAgain(expiredMessage: Bool)
    case unlockFirst
    case tryLater(after: Double)
    case renewalRefused                 // the server would not renew the session: offer a sign-in
    case failed(status: Int)
}

extension SessionLayer {
    /// One call to your API with a fresh access token; an auth failure is fed back once, with
    /// the token the call sent, and the call is retried at most once.
    func get(_ url: URL) async throws -> Data {
        var retried = false
        while true {
            let token: Token
            switch await manager.freshAccessToken() {
            case .token(let fresh, _):                     token = fresh
            case .sessionEnded(_, let showExpiredMessage): throw APICallError.signInAgain(expiredMessage: showExpiredMessage)
            case .locked:                                  throw APICallError.unlockFirst
            case .offline(let retryAfter), .unavailable(let retryAfter, _): throw APICallError.tryLater(after: retryAfter)
            case .renewalRefused:                          throw APICallError.renewalRefused
            }
            var request = URLRequest(url: url)
            let value = token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            // A DPoP session signs each request with its key; a bearer session sends the token alone.
            if let proof = try await manager.dpopProof(method: "GET", url: url, accessToken: token) {
                request.setValue("DPoP " + value, forHTTPHeaderField: "Authorization")
                request.setValue(proof, forHTTPHeaderField: "DPoP")
            } else {
                request.setValue("Bearer " + value, forHTTPHeaderField: "Authorization")
            }
            let (body, response) = try await URLSession.shared.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw APICallError.failed(status: 0) }
            if http.statusCode < 300 { return body }
            // The retried call's failure is final: a 401 that a fresh token did not fix is the
            // API's answer, not a reason for another refresh.
            if retried { throw APICallError.failed(status: http.statusCode) }
            retried = true
            // A DPoP server asking for its nonce, or refusing a proof dated by a clock that has
            // changed: once more with a new proof, no refresh.
            if await manager.takeDPoPChallenge(status: http.statusCode, wwwAuthenticate: http.value(forHTTPHeaderField: "WWW-Authenticate"),
                                               dpopNonce: http.value(forHTTPHeaderField: "DPoP-Nonce"),
                                               date: http.value(forHTTPHeaderField: "Date"), for: url) { continue }
            // "invalid_token" or "JWT expired" refreshes once (.home: call again); "session
            // expired" ends the session. The failure is bound to the token this call sent.
            switch await manager.handleAPIFailure(status: http.statusCode, body: body,
                                                  wwwAuthenticate: http.value(forHTTPHeaderField: "WWW-Authenticate"), sentToken: token) {
            case .home?:                                continue
            case .login(_, let showExpiredMessage)?:    throw APICallError.signInAgain(expiredMessage: showExpiredMessage)
            case .locked?:                              throw APICallError.unlockFirst
            case .offline(_, let retryAfter)?, .unavailable(let retryAfter, _)?: throw APICallError.tryLater(after: retryAfter)
            case .renewalRefused?:                      throw APICallError.renewalRefused
            case nil:                                   throw APICallError.failed(status: http.statusCode)
            }
        }
    }
}
