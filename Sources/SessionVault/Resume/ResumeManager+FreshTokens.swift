import Foundation

extension ResumeManager {
    /// An access token for an API call, refreshed first when it is due (see
    /// `ResumePolicy.refreshDue(for:)`: its expiry minus a margin of at most `minimumAccessTTL`).
    ///
    /// Refreshes only when needed, single-flight with `resume()`, auto-refresh and other
    /// processes (the refresh lock), so any number of concurrent calls make at most one request.
    /// Every token handed out counts as the user's activity (`Vault.touch()`, coalesced): an
    /// app whose user makes API calls is not locked by the idle timeout. After the idle timeout
    /// (or a clock moved back under one) the answer is `.locked`: unlock first. An app extension
    /// with no unlock screen uses `backgroundAccessToken()` instead. No outcome carries token
    /// bytes in an error.
    public func freshAccessToken() async -> FreshTokenOutcome {
        await accessToken(forUser: true)
    }

    /// An access token for work the user did not start now: an app extension (widget, intent,
    /// notification service) or a background task. It keeps every rule of the session (sign-out,
    /// refresh-token expiry, absolute lifetime, a server's 429, one refresh per due token) but
    /// not the idle lock, which guards the app's screens, not its background work; it prompts
    /// for nothing and does not count as activity.
    public func backgroundAccessToken() async -> FreshTokenOutcome {
        await accessToken(forUser: false)
    }

    /// - Parameter decidingAgain: true on the second decision (see below): there is no third.
    private func accessToken(forUser: Bool, decidingAgain: Bool = false) async -> FreshTokenOutcome {
        if let pending = await storeUnsavedRotation() {
            // The disk is still full: the rotated token from memory, the only valid one.
            guard case .home(let session) = pending, let token = unsavedAccessToken() else { return Self.freshTokenOutcome(pending, token: nil) }
            return .token(token, session)
        }
        let outcome: ResumeOutcome
        var decided: Session?
        // A refresh ahead of expiry: the live token it would replace, if the refresh fails.
        var refreshingAhead: Session?
        do {
            let vault = try self.vault
            // Background work is not held by the idle lock: decided as if there were none.
            var rules = policy
            if !forUser { rules.idleTimeout = nil }
            let snapshot = try await vault.snapshot()
            switch ResumeDecision.decide(snapshot, now: clock(), policy: rules) {
            case .valid(let session):
                // A DPoP session's token is handed out only with its key checked, as `resume()`
                // does: a lost key ends the session, a manager without DPoP sends nothing.
                if case .stop(let stopped) = await sessionProof(for: session, in: vault) { return Self.freshTokenOutcome(stopped, token: nil) }
                if let token = try await vault.accessToken() {
                    if forUser { try? await vault.touch() }
                    return .token(token, session)
                }
                outcome = await refreshNow()
            case .expired(_, let reason) where reason.requiresUnlock(under: rules):
                return .locked
            case .expired(let session, .accessTokenExpiringSoon):
                // Refreshing ahead is an optimisation: should it fail, the live token still serves.
                refreshingAhead = session
                if !forUser { decided = session }
                outcome = forUser ? await resume() : await refreshForBackground(session)
            case .expired(let session, _) where !forUser:
                // No prompt: the refresh alone, single-flight with every other caller.
                decided = session
                outcome = await refreshForBackground(session)
            case .expired, .missing, .corrupted, .unavailable:
                // The same decisions (and the same single flight) as a launch.
                outcome = await resume()
            }
        } catch {
            // Not only a failure: a corruption whose recovery found the vault replaced elsewhere
            // decides again, and may reach home on the new vault; its token is read below.
            outcome = await self.outcome(for: error)
        }
        // The refresh found its session replaced (the user signed in afresh elsewhere while the
        // request was out) and the replacement needs a refresh of its own: "offline" would be
        // untrue, the network is fine. Decide again, once, on the session that is there now.
        if case .offline(let current, _) = outcome, let decided, current.id != decided.id, !decidingAgain {
            logger.debug("session replaced during its refresh; deciding again", metadata: ["session.id": "\(current.id)"])
            return await accessToken(forUser: forUser, decidingAgain: true)
        }
        if let ahead = refreshingAhead, let live = await liveTokenAfterFailedRefreshAhead(ahead, outcome: outcome) {
            if forUser { try? await openedVault?.touch() }
            return .token(live, ahead)
        }
        guard case .home = outcome else { return Self.freshTokenOutcome(outcome, token: nil) }
        // A rotation the disk could not take yet holds the only live access token.
        if let unsaved = unsavedAccessToken() { return Self.freshTokenOutcome(outcome, token: unsaved) }
        let token = try? await openedVault?.accessToken()
        if forUser, token != nil { try? await openedVault?.touch() }
        return Self.freshTokenOutcome(outcome, token: token ?? nil)
    }

    /// The access token a refresh ahead of its expiry was to replace, when that refresh failed
    /// for the network or the server (`.offline`: unreachable, failing, a 429; `.renewalRefused`)
    /// and the token still has more than `ResumePolicy.liveTokenFloor` left: the API still
    /// accepts it, and the next call (or the loop) tries the refresh again. Nil when the session
    /// changed meanwhile, ended, needs an unlock, or the vault could not take the refresh
    /// (`.unavailable`: that answer stands, as for any call).
    private func liveTokenAfterFailedRefreshAhead(_ session: Session, outcome: ResumeOutcome) async -> Token? {
        switch outcome {
        case .offline, .renewalRefused: break
        case .home, .login, .locked, .unavailable: return nil
        }
        guard let vault = openedVault, let current = try? await vault.currentSession(), current.id == session.id,
            current.tokenVersion == session.tokenVersion, let expiry = current.accessExpiresAt,
            expiry.timeIntervalSince(clock()) > ResumePolicy.liveTokenFloor
        else { return nil }
        // A DPoP session's token only with its key, as every hand-out checks.
        if case .stop = await sessionProof(for: current, in: vault) { return nil }
        return try? await vault.accessToken()
    }

    static func freshTokenOutcome(_ outcome: ResumeOutcome, token: Token?) -> FreshTokenOutcome {
        switch outcome {
        case .home(let session):
            guard let token else { return .unavailable(retryAfter: 1, detail: "the refresh stored no access token") }
            return .token(token, session)
        case .login(let reason, let message): return .sessionEnded(reason: reason, showExpiredMessage: message)
        case .locked: return .locked
        case .offline(_, let retryAfter): return .offline(retryAfter: retryAfter)
        case .renewalRefused(_, let since, let retryAfter): return .renewalRefused(since: since, retryAfter: retryAfter)
        case .unavailable(let retryAfter, let detail): return .unavailable(retryAfter: retryAfter, detail: detail)
        }
    }
}

/// What `ResumeManager.freshAccessToken()` gives an API call.
public enum FreshTokenOutcome: Sendable, CustomStringConvertible {
    /// An access token with at least the policy's minimum TTL left, and the session it belongs to.
    /// Reveal its bytes only for the request (`withRevealedBytes`).
    case token(Token, Session)
    /// The session is over: show login (with the "session expired" message when asked).
    case sessionEnded(reason: MissingReason, showExpiredMessage: Bool)
    /// The server could not be reached or is rate limiting: tokens kept; try again later.
    case offline(retryAfter: TimeInterval)
    /// The server refused to renew the session without saying it is over (see
    /// `ResumeOutcome.renewalRefused`): tokens kept; offer a new sign-in, or try again later.
    case renewalRefused(since: Date, retryAfter: TimeInterval)
    /// The user must unlock first (idle timeout passed, or the biometric prompt failed): show
    /// your unlock screen, then `resumeAfterUnlock()`.
    case locked
    /// The vault cannot be read right now (locked keystore, busy, replaced): retry later.
    case unavailable(retryAfter: TimeInterval, detail: String)

    /// The case and what it carries; a token appears only as its fingerprint.
    public var description: String {
        switch self {
        case .token(let token, let session): return "token(\(token), \(session))"
        case .sessionEnded(let reason, let message): return "sessionEnded(\(reason.code)\(message ? ", show expired message" : ""))"
        case .offline(let retryAfter): return "offline(retry in \(retryAfter) s)"
        case .renewalRefused(let since, let retryAfter): return "renewalRefused(since \(DescriptionText.time(since)), retry in \(retryAfter) s)"
        case .locked: return "locked"
        case .unavailable(let retryAfter, let detail): return "unavailable(retry in \(retryAfter) s: \(detail))"
        }
    }
}
