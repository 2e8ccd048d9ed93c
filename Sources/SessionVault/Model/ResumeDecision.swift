import Foundation

/// The resume decision: a pure function of what the vault holds, the time and the policy.
/// All I/O happens around it, so every path is testable with an injected clock.
public enum ResumeDecision {
    /// Decides the resume path. Order matters: the checks that end a session (absolute lifetime,
    /// refresh expiry) come before the ones that only ask for a refresh, and a clock that moved
    /// backwards is never answered with `valid`.
    public static func decide(_ snapshot: VaultSnapshot, now: Date, policy: ResumePolicy) -> ResumePath {
        let session: Session
        let lastWallClock: Date
        switch snapshot {
        case .empty(let reason): return .missing(reason)
        case .corrupted(let reason): return .corrupted(reason)
        case .unavailable(let retryAfter, let detail): return .unavailable(retryAfter: retryAfter, detail: detail)
        case .session(let current, let lastSeen, _):
            session = current
            lastWallClock = lastSeen
        }

        if let deadline = session.absoluteDeadline, now >= deadline { return .missing(.absoluteLifetimePassed) }
        if let lifetime = policy.absoluteLifetime, now.timeIntervalSince(session.issuedAt) >= lifetime {
            return .missing(.absoluteLifetimePassed)
        }
        if lastWallClock.timeIntervalSince(now) > policy.clockSkewTolerance { return .expired(session, .clockRolledBack) }
        if !session.hasRefreshToken {
            // Without a refresh token the session lives exactly as long as its access token.
            if let expiry = session.accessExpiresAt, session.accessTokenFingerprint != nil,
               expiry.timeIntervalSince(now) >= policy.minimumAccessTTL { return .valid(session) }
            return .missing(.refreshTokenExpired)
        }
        if let expiry = session.refreshExpiresAt, now >= expiry { return .missing(.refreshTokenExpired) }
        if session.refreshPendingSince != nil { return .expired(session, .refreshInterrupted) }
        if let idle = policy.idleTimeout, now.timeIntervalSince(session.lastActiveAt) >= idle { return .expired(session, .idle) }
        guard let accessExpiry = session.accessExpiresAt, session.accessTokenFingerprint != nil else {
            return .expired(session, .noAccessToken)
        }
        if now >= accessExpiry { return .expired(session, .accessTokenExpired) }
        if accessExpiry.timeIntervalSince(now) < policy.minimumAccessTTL { return .expired(session, .accessTokenExpiringSoon) }
        return .valid(session)
    }
}
