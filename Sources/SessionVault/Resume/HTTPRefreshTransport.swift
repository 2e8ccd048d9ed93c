import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one HTTP exchange both shipped refreshers make: POST a body, classify the answer.
struct HTTPRefreshTransport: Sendable {
    let session: URLSession
    let timeout: TimeInterval

    func post(_ url: URL, headers: [String: String], body: Data, prover: DPoPProver? = nil) async throws(RefreshError) -> RefreshedTokens {
        let data: Data
        let http: HTTPURLResponse
        switch await exchange(url, headers: headers, body: body, prover: prover) {
        case .success(let answer): (data, http) = answer
        case .failure(let failure): throw .network(failure.detail)
        }
        let serverDate = Self.serverDate(of: http)
        guard (200..<300).contains(http.statusCode) else {
            throw AuthErrorBody.classifyRefreshFailure(
                status: http.statusCode, body: data, retryAfterHeader: http.value(forHTTPHeaderField: "Retry-After"),
                wwwAuthenticate: http.value(forHTTPHeaderField: "WWW-Authenticate"))
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
    ///
    /// With a `prover` every attempt carries a fresh DPoP proof (its own `jti`), a `DPoP-Nonce`
    /// in the answer is remembered for the server, and a `use_dpop_nonce` refusal that came with
    /// a nonce is sent once more with it (RFC 9449 §8): exactly one retry, never a loop. The
    /// server refused the first request before judging its grant, so the retry spends nothing
    /// twice.
    ///
    /// The retry is made only when it can differ from the refused request: the nonce was taken
    /// (one a proof cannot carry is ignored) and is not the one the refused proof carried.
    ///
    /// The `Date` of an answer that is the server's own (a success, or a refusal of the proof or
    /// for its nonce; not a gateway's 5xx) re-measures the server's clock the proofs are dated by
    /// (`DPoPServerClock`). A proof refused as `invalid_dpop_proof` is sent once more when the
    /// refused proof was dated more than `DPoPServerClock.meaningfulChange` away from that
    /// measurement (a device clock set wrong, or changed since the offset was taken; a refusal
    /// without a `Date` falls back to the device's own clock). The same single retry serves the
    /// nonce and the clock: never more than two requests. A server that checks the proof before
    /// the grant (RFC 9449 §5) has spent nothing on the refused request.
    func exchange(_ url: URL, headers: [String: String], body: Data, prover: DPoPProver? = nil) async -> Result<(Data, HTTPURLResponse), NoAnswer> {
        let sentNonce = prover?.nonces.nonce(for: url, server: .authorization)
        var answer = await send(url, headers: headers, body: body, prover: prover)
        guard let prover, case .success(let (data, http)) = answer else { return answer }
        let nonce = http.value(forHTTPHeaderField: "DPoP-Nonce")
        let taken = nonce.map { prover.nonces.remember($0, for: url, server: .authorization) } ?? false
        let challenge = http.value(forHTTPHeaderField: "WWW-Authenticate")
        let asksForNonce = Self.asksForNonce(status: http.statusCode, body: data, wwwAuthenticate: challenge)
        let refused = Self.refusesProof(status: http.statusCode, body: data, wwwAuthenticate: challenge)
        let newNonce = taken && nonce != sentNonce && asksForNonce
        var redated = false
        if (200..<300).contains(http.statusCode) || refused || asksForNonce,
            let date = Self.serverDate(of: http) ?? (refused ? prover.clock() : nil)
        {
            redated = prover.noteServerDate(date) && refused
        }
        if newNonce || redated {
            answer = await send(url, headers: headers, body: body, prover: prover)
            if case .success(let (retriedData, retried)) = answer {
                if let next = retried.value(forHTTPHeaderField: "DPoP-Nonce") { prover.remember(nonce: next, for: url) }
                let retriedChallenge = retried.value(forHTTPHeaderField: "WWW-Authenticate")
                if (200..<300).contains(retried.statusCode)
                    || Self.refusesProof(status: retried.statusCode, body: retriedData, wwwAuthenticate: retriedChallenge),
                    let date = Self.serverDate(of: retried)
                {
                    _ = prover.noteServerDate(date)
                }
            }
        }
        return answer
    }

    /// An answer's `Date` header, parsed.
    static func serverDate(of http: HTTPURLResponse) -> Date? {
        http.value(forHTTPHeaderField: "Date").flatMap(parseHTTPDate)
    }

    /// Whether an answer refuses the request's DPoP proof itself (`invalid_dpop_proof`, RFC
    /// 9449 §7.1 and §5.2), in the body's `error` or a `DPoP` challenge's `error` parameter.
    static func refusesProof(status: Int, body: Data, wwwAuthenticate: String?) -> Bool {
        says("invalid_dpop_proof", status: status, body: body, wwwAuthenticate: wwwAuthenticate)
    }

    /// Whether an answer is RFC 9449's "use this nonce": a token endpoint's 400 with
    /// `"error":"use_dpop_nonce"`, or a 401 whose `WWW-Authenticate` has a `DPoP` challenge with
    /// `error="use_dpop_nonce"` (the parameter, not the words anywhere in the header).
    static func asksForNonce(status: Int, body: Data, wwwAuthenticate: String?) -> Bool {
        says("use_dpop_nonce", status: status, body: body, wwwAuthenticate: wwwAuthenticate)
    }

    /// Whether a 4xx carries the DPoP error `code`: as a `DPoP` challenge's `error` parameter
    /// (not the words anywhere in the header), or as the JSON body's `error`. Any 4xx: servers
    /// refuse proofs with 400 and 401 (RFC 9449) and 403 (Glewlwyd, for a proof's `iat`).
    private static func says(_ code: String, status: Int, body: Data, wwwAuthenticate: String?) -> Bool {
        guard (400..<500).contains(status), status != 429 else { return false }
        if let header = wwwAuthenticate,
            AuthenticationChallenge.parse(header).contains(where: { $0.scheme == "dpop" && $0.parameters["error"] == code })
        {
            return true
        }
        let object = try? JSONSerialization.jsonObject(with: body.prefix(16 * 1024)) as? [String: Any]
        return object?["error"] as? String == code
    }

    /// One POST, with a proof of its own when there is a prover.
    private func send(_ url: URL, headers: [String: String], body: Data, prover: DPoPProver?) async -> Result<(Data, HTTPURLResponse), NoAnswer> {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let prover {
            do {
                request.setValue(try prover.proof(method: "POST", url: url), forHTTPHeaderField: "DPoP")
            } catch {
                return .failure(NoAnswer(detail: "no DPoP proof could be made (\(error)); nothing sent"))
            }
        }
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
    func postSignIn(
        _ url: URL, headers: [String: String], body: Data, codeExchange: Bool,
        prover: DPoPProver? = nil
    ) async throws(SignInError) -> SignInAnswer {
        let data: Data
        let http: HTTPURLResponse
        switch await exchange(url, headers: headers, body: body, prover: prover) {
        case .success(let answer): (data, http) = answer
        case .failure(let failure): throw .network(failure.detail)
        }
        guard (200..<300).contains(http.statusCode) else {
            throw AuthErrorBody.classifySignInFailure(
                status: http.statusCode, body: data.prefix(16 * 1024),
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
