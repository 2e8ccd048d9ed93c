import Foundation

extension ResumeManager {
    /// An access token for an API call, with at least `policy.minimumAccessTTL` left.
    ///
    /// Refreshes only when needed, single-flight with `resume()`, auto-refresh and other
    /// processes (the refresh lock), so any number of concurrent calls make at most one request.
    /// Inside the idle window an expired access token is refreshed silently; after the idle
    /// timeout the answer is `.locked` (unlock first). No outcome carries token bytes in an error.
    public func freshAccessToken() async -> FreshTokenOutcome {
        let outcome: ResumeOutcome
        do {
            let vault = try openVaultForCall()
            switch try await vault.resumePath() {
            case .valid(let session):
                if let token = try await vault.accessToken() { return .token(token, session) }
                outcome = await refreshNow()
            case .expired(_, .idle):
                return .locked
            case .expired, .missing, .corrupted, .unavailable:
                // The same decisions (and the same single flight) as a launch.
                outcome = await resume()
            }
        } catch {
            return Self.freshTokenOutcome(await outcomeForError(error), token: nil)
        }
        guard case .home = outcome else { return Self.freshTokenOutcome(outcome, token: nil) }
        let token = try? await openedVaultForCall()?.accessToken()
        return Self.freshTokenOutcome(outcome, token: token ?? nil)
    }

    static func freshTokenOutcome(_ outcome: ResumeOutcome, token: Token?) -> FreshTokenOutcome {
        switch outcome {
        case .home(let session):
            guard let token else { return .unavailable(retryAfter: 1, detail: "the refresh stored no access token") }
            return .token(token, session)
        case .login(let reason, let message): return .sessionEnded(reason: reason, showExpiredMessage: message)
        case .locked: return .locked
        case .offline(_, let retryAfter): return .offline(retryAfter: retryAfter)
        case .unavailable(let retryAfter, let detail): return .unavailable(retryAfter: retryAfter, detail: detail)
        }
    }
}
