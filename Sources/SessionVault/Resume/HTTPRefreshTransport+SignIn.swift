import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRefreshTransport {
    /// A sign-in's token request: the tokens, and the body they came in (the caller reads the
    /// `id_token` from it, then lets it go).
    struct SignInAnswer: Sendable {
        var tokens: RefreshedTokens
        var body: Data
    }

    /// Sends a sign-in (password grant or code exchange) once and classifies the answer as a
    /// sign-in, never as a refresh: an `invalid_grant` here refuses credentials or a code.
    /// `body` holds a secret (password, verifier) in ordinary memory, as any request body must
    /// for `URLSession`: the caller builds it from locked bytes right before this call and keeps
    /// no copy (the same holds for a refresh token in `post`).
    func postSignIn(_ url: URL, headers: [String: String], body: Data, codeExchange: Bool,
                    prover: DPoPProver? = nil) async throws(SignInError) -> SignInAnswer {
        let data: Data
        let http: HTTPURLResponse
        switch await exchange(url, headers: headers, body: body, prover: prover) {
        case .success(let answer): (data, http) = answer
        case .failure(let failure): throw .network(failure.detail)
        }
        guard (200..<300).contains(http.statusCode) else {
            throw AuthErrorBody.classifySignInFailure(status: http.statusCode, body: data.prefix(16 * 1024),
                                                      retryAfterHeader: http.value(forHTTPHeaderField: "Retry-After"), codeExchange: codeExchange)
        }
        let serverDate = Self.serverDate(of: http)
        do {
            return SignInAnswer(tokens: RefreshedTokens(response: try TokenResponse(json: data), serverDate: serverDate), body: data)
        } catch {
            throw .invalidResponse(error.description)
        }
    }
}
