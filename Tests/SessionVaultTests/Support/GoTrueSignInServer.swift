import Foundation
import SessionVaultTestSupport
import SessionVaultTesting

/// A GoTrue-shaped password sign-in endpoint with state, on a real `ScriptedHTTPServer`, as seed
/// 001 specifies it: `POST /auth/v1/token?grant_type=password` with JSON `email` and
/// `password` and an `apikey` header; 200 with a session (`access_token`, `expires_in`,
/// `expires_at`, `refresh_token`, `user`); 400 `invalid_grant` "Invalid login credentials";
/// and the login limit, 5 attempts per 5 minutes (counted on the test's clock, for every
/// attempt as the seed's per-IP limit does), answered 429 `rate_limit_exceeded` "Too many login
/// attempts. Please try again in N seconds." with no `retry_after` field.
final class GoTrueSignInServer: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`.
    static let apiKey = "anon-key"
    static let window: TimeInterval = 300
    static let attemptsPerWindow = 5

    let http: ScriptedHTTPServer
    private let lock = NSLock()
    private let clock: ManualClock
    private var users: [String: (password: String, id: String)] = [:]
    private var attempts: [Date] = []
    private var issued = 0
    private var scripted: [ScriptedResponse] = []
    private var gates: [ResponseGate] = []
    /// The `expires_in` of the next sessions.
    var expiresIn = 3600

    init(clock: ManualClock) throws {
        http = try ScriptedHTTPServer()
        self.clock = clock
        http.responder = { [unowned self] request in self.answer(request) }
    }

    var baseURL: URL { http.baseURL.appendingPathComponent("auth/v1") }

    func addUser(email: String, password: String, id: String) {
        lock.withLock { users[email] = (password, id) }
    }

    /// The next sign-in request gets `response` instead of the server's own answer (an attempt
    /// all the same).
    func script(_ response: ScriptedResponse) { lock.withLock { scripted.append(response) } }

    /// The next sign-in's answer is held until the returned gate is opened.
    func holdNext() -> ResponseGate {
        let gate = ResponseGate()
        lock.withLock { gates.append(gate) }
        return gate
    }

    /// Sign-in requests that reached the server.
    var signInRequests: [RecordedRequest] { http.requests.filter { $0.path.contains("grant_type=password") } }

    /// The refresh token of the `n`th session issued (1-based).
    static func refreshToken(_ n: Int) -> String { "gotrue-refresh-\(n)" }

    private func answer(_ request: RecordedRequest) -> ScriptedResponse {
        guard request.method == "POST", request.path.hasSuffix("/auth/v1/token?grant_type=password") else {
            return .json(status: 404, #"{"error":"not_found"}"#)
        }
        return lock.withLock {
            let response = decide(request)
            return gates.isEmpty ? response : response.held(by: gates.removeFirst())
        }
    }

    private func decide(_ request: RecordedRequest) -> ScriptedResponse {
        let now = clock.now
        guard request.header("apikey") == Self.apiKey else {
            return .json(status: 401, #"{"message":"Invalid API key"}"#)
        }
        attempts = attempts.filter { now.timeIntervalSince($0) < Self.window }
        if attempts.count >= Self.attemptsPerWindow {
            let wait = Int((attempts[0].addingTimeInterval(Self.window).timeIntervalSince(now)).rounded(.up))
            return .json(status: 429, #"{"error":"rate_limit_exceeded","error_description":"Too many login attempts. Please try again in \#(wait) seconds."}"#)
        }
        attempts.append(now)
        if !scripted.isEmpty { return scripted.removeFirst() }
        guard let fields = (try? JSONSerialization.jsonObject(with: request.body)) as? [String: Any],
            let email = fields["email"] as? String, let password = fields["password"] as? String
        else {
            return .json(status: 400, #"{"error":"invalid_request","error_description":"email and password required"}"#)
        }
        guard let user = users[email], user.password == password else {
            return .json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid login credentials"}"#)
        }
        issued += 1
        let expiresAt = Int(now.timeIntervalSince1970) + expiresIn
        return .json(
            #"""
            {"access_token":"gotrue-access-\#(issued)","token_type":"bearer","expires_in":\#(expiresIn),"expires_at":\#(expiresAt),
             "refresh_token":"\#(Self.refreshToken(issued))","user":{"id":"\#(user.id)","aud":"authenticated","role":"authenticated",
             "email":"\#(email)","app_metadata":{"provider":"email","providers":["email"]},"user_metadata":{"name":"Pat"}}}
            """#)
    }
}
