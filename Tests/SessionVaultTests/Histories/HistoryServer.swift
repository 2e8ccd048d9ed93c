import Foundation
import SessionVaultTestSupport
import SessionVaultTesting

/// The server side of a history: a GoTrue-shaped token and logout endpoint on a real
/// `ScriptedHTTPServer` that keeps the truth the invariants are checked against. Each sign-in
/// starts a family (GoTrue's session); every refresh with the family's newest refresh token issues
/// the next pair, one with an older token is a reuse and revokes the whole family (as GoTrue's
/// reuse detection does); `/logout` with a live access token revokes the family (or all of the
/// user's families for `global`). It answers queued faults (429 with `retry_after`, 5xx), holds one
/// answer behind a `ResponseGate` when asked, and judges access tokens for the app's API on its own
/// clock, which never moves back.
final class HistoryServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    enum Fault: Sendable, Equatable {
        case rateLimited(retryAfter: Int)
        case serverError(status: Int)
        /// A page from something in front of the server (a CDN's challenge): HTML, not its JSON.
        case proxyPage
        /// A refusal that names no error: 400 with an empty body.
        case unexplained
    }

    /// What the API says to an access token, on the server's clock.
    enum Judgement: Equatable { case live, expired, revoked, unknown }

    struct Family {
        var refreshTokens: [String]
        var accessTokens: [String]
        var revoked = false
        var revokedByReuse = false
        /// A logout for this family was answered with a fault (the client was told "failed").
        var logoutFaulted = false
    }

    private struct Issued {
        let family: Int
        let at: Date
    }

    let http: ScriptedHTTPServer
    let email = "history.user@example.test"
    private let lock = NSLock()
    private let lifetime: Int?
    private let trueClock: ManualClock
    private let tag: String
    private var families: [Family] = []
    private var refreshOwner: [String: (family: Int, index: Int)] = [:]
    private var accessIssued: [String: Issued] = [:]
    private var faults: [Fault] = []
    private var gate: ResponseGate?
    private(set) var refreshRequests = 0
    private(set) var refreshesAnswered = 0
    private(set) var faultAnswers = 0
    private(set) var reuses = 0
    private(set) var logoutRequests = 0

    /// - Parameters:
    ///   - lifetime: the `expires_in` every answer states; nil leaves it out (the client assumes
    ///     an hour, and the API accepts a token for an hour).
    ///   - trueClock: the server's clock, read when a request arrives.
    ///   - tag: makes this history's token texts its own (for the leak scan).
    init(lifetime: Int?, trueClock: ManualClock, tag: String) throws {
        http = try ScriptedHTTPServer()
        self.lifetime = lifetime
        self.trueClock = trueClock
        self.tag = tag
        http.responder = { [unowned self] request in self.answer(request) }
    }

    var baseURL: URL { http.baseURL.appendingPathComponent("auth/v1") }

    /// The access lifetime the API enforces.
    var grantedLifetime: TimeInterval { TimeInterval(lifetime ?? 3600) }

    /// A new family (a password sign-in): its response JSON, as the app would store it.
    func signIn() -> (family: Int, json: String) {
        lock.withLock {
            let family = families.count
            families.append(Family(refreshTokens: [], accessTokens: []))
            return (family, issue(family))
        }
    }

    func enqueue(_ fault: Fault, count: Int) { lock.withLock { faults += Array(repeating: fault, count: count) } }
    func clearFaults() { lock.withLock { faults.removeAll() } }
    var nextFault: Fault? { lock.withLock { faults.first } }
    /// The fault the answer after the next `position` ones will meet, if any is queued that far.
    func fault(at position: Int) -> Fault? { lock.withLock { faults.indices.contains(position) ? faults[position] : nil } }

    /// The next refresh answer waits until `gate` is opened.
    func holdNextRefresh(_ gate: ResponseGate) { lock.withLock { self.gate = gate } }
    func releaseHold() { lock.withLock { gate = nil } }

    /// Revokes a family, as an administrator or the server's own session policy would.
    func revoke(family: Int) { lock.withLock { if families.indices.contains(family) { families[family].revoked = true } } }

    func family(_ index: Int) -> Family? { lock.withLock { families.indices.contains(index) ? families[index] : nil } }
    var allFamilies: [Family] { lock.withLock { families } }

    /// Whether the server would still refresh (or accept a logout) for this family.
    func isLive(family: Int) -> Bool { lock.withLock { families.indices.contains(family) && !families[family].revoked } }

    /// The family an access or refresh token belongs to.
    func familyOf(token: String) -> Int? { lock.withLock { accessIssued[token]?.family ?? refreshOwner[token]?.family } }

    func judge(accessToken: String) -> Judgement {
        lock.withLock {
            guard let issued = accessIssued[accessToken] else { return .unknown }
            if families[issued.family].revoked { return .revoked }
            return trueClock.now < issued.at.addingTimeInterval(grantedLifetime) ? .live : .expired
        }
    }

    /// What `/logout` says to an access token, in its order: expired before revoked.
    func judgeAsLogout(accessToken: String) -> Judgement {
        lock.withLock {
            guard let issued = accessIssued[accessToken] else { return .unknown }
            if trueClock.now >= issued.at.addingTimeInterval(grantedLifetime) { return .expired }
            return families[issued.family].revoked ? .revoked : .live
        }
    }

    /// Every token text this server handed out, for the leak scan.
    var allTokenTexts: [String] { lock.withLock { families.flatMap { $0.refreshTokens + $0.accessTokens } } }

    // MARK: Answers

    private func issue(_ family: Int) -> String {
        let n = families[family].refreshTokens.count
        let refresh = "rt-\(tag)-\(family)-\(n)-Qz7", access = "at-\(tag)-\(family)-\(n)-Kv3"
        families[family].refreshTokens.append(refresh)
        families[family].accessTokens.append(access)
        refreshOwner[refresh] = (family, n)
        accessIssued[access] = Issued(family: family, at: trueClock.now)
        let expires = lifetime.map { #""expires_in":\#($0),"# } ?? ""
        return #"{"access_token":"\#(access)","token_type":"bearer",\#(expires)"refresh_token":"\#(refresh)","user":{"id":"user-1","email":"\#(email)"}}"#
    }

    private func answer(_ request: RecordedRequest) -> ScriptedResponse {
        if request.path.contains("grant_type=refresh_token") { return refresh(request) }
        if request.path.contains("/logout") { return logout(request) }
        return ScriptedResponse(status: 404)
    }

    private func popFault() -> ScriptedResponse? {
        guard !faults.isEmpty else { return nil }
        faultAnswers += 1
        switch faults.removeFirst() {
        case .rateLimited(let retryAfter):
            return .json(status: 429, #"{"error":"over_request_rate_limit","msg":"Request rate limit reached","retry_after":\#(retryAfter)}"#)
        case .serverError(let status):
            return .json(status: status, #"{"msg":"upstream unavailable"}"#)
        case .proxyPage:
            return ScriptedResponse(
                status: 403, headers: [("Content-Type", "text/html")],
                body: Data("<html><body>Access denied. Your session expired? Checking your browser.</body></html>".utf8))
        case .unexplained:
            return ScriptedResponse(status: 400)
        }
    }

    private func refresh(_ request: RecordedRequest) -> ScriptedResponse {
        let sent = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["refresh_token"] as? String ?? ""
        return lock.withLock {
            refreshRequests += 1
            let response = refreshAnswer(sent)
            guard let held = gate else { return response }
            gate = nil
            return response.held(by: held)
        }
    }

    /// Under `lock`.
    private func refreshAnswer(_ sent: String) -> ScriptedResponse {
        if let fault = popFault() { return fault }
        let notFound = ScriptedResponse.json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Refresh Token Not Found"}"#)
        guard let owner = refreshOwner[sent], !families[owner.family].revoked else { return notFound }
        guard owner.index == families[owner.family].refreshTokens.count - 1 else {
            reuses += 1
            families[owner.family].revoked = true
            families[owner.family].revokedByReuse = true
            return .json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#)
        }
        refreshesAnswered += 1
        return .json(issue(owner.family))
    }

    private func logout(_ request: RecordedRequest) -> ScriptedResponse {
        let bearer = request.header("Authorization").map { String($0.dropFirst("Bearer ".count)) } ?? ""
        let scope = URLComponents(string: request.path)?.queryItems?.first { $0.name == "scope" }?.value ?? "local"
        return lock.withLock {
            logoutRequests += 1
            let issued = accessIssued[bearer]
            if let fault = popFault() {
                if let issued { families[issued.family].logoutFaulted = true }
                return fault
            }
            guard let issued, trueClock.now < issued.at.addingTimeInterval(grantedLifetime) else {
                return .json(status: 401, #"{"code":401,"error_code":"bad_jwt","msg":"invalid JWT: token is expired"}"#)
            }
            guard !families[issued.family].revoked else {
                return .json(status: 403, #"{"code":403,"error_code":"session_not_found","msg":"Session not found"}"#)
            }
            for index in families.indices {
                switch scope {
                case "global": families[index].revoked = true
                case "others": if index != issued.family { families[index].revoked = true }
                default: if index == issued.family { families[index].revoked = true }
                }
            }
            return ScriptedResponse(status: 204)
        }
    }
}
