import Foundation

/// The resume decision: a pure function of what the vault holds, the time and the policy.
/// All I/O happens around it, so every path is testable with an injected clock.
public enum ResumeDecision {
    /// Decides the resume path. Order matters: the checks that end a session (absolute lifetime,
    /// refresh expiry) come before the ones that only ask for a refresh, and a clock that moved
    /// backwards (the vault saw a later time, or recorded activity later than now) is never
    /// answered with `valid`: it is `expired(clockRolledBack)`, which asks for an unlock whenever
    /// the policy has an idle timeout (`ExpiryReason.requiresUnlock(under:)`).
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
        if clockMovedBack(lastWallClock: lastWallClock, lastActiveAt: session.lastActiveAt, now: now, policy: policy) {
            return .expired(session, .clockRolledBack)
        }
        if !session.hasRefreshToken {
            // Without a refresh token the session lives exactly as long as its access token.
            if let due = policy.refreshDue(for: session), now < due { return .valid(session) }
            return .missing(.refreshTokenExpired)
        }
        if let expiry = session.refreshExpiresAt, now >= expiry { return .missing(.refreshTokenExpired) }
        if session.refreshPendingSince != nil { return .expired(session, .refreshInterrupted) }
        if let idle = policy.idleTimeout, now.timeIntervalSince(session.lastActiveAt) >= idle { return .expired(session, .idle) }
        guard let accessExpiry = session.accessExpiresAt, let due = policy.refreshDue(for: session) else {
            return .expired(session, .noAccessToken)
        }
        // Due: the expiry minus a margin that shrinks with the granted lifetime, never sooner
        // than `minimumRefreshInterval` after the token arrived (see `ResumePolicy.refreshDue`).
        if now < due { return .valid(session) }
        return .expired(session, now >= accessExpiry ? .accessTokenExpired : .accessTokenExpiringSoon)
    }

    /// Whether the clock is behind what the vault already saw, so that neither freshness nor
    /// recent activity can be measured against it: the latest time seen is more than
    /// `clockSkewTolerance` ahead of now, or, under an idle timeout, activity was recorded more
    /// than `activityClockSlack` after now. The second has no tolerance to speak of: a clock
    /// set back by a minute after two idle hours would otherwise skip the idle lock.
    public static func clockMovedBack(lastWallClock: Date, lastActiveAt: Date, now: Date, policy: ResumePolicy) -> Bool {
        if lastWallClock.timeIntervalSince(now) > policy.clockSkewTolerance { return true }
        return policy.idleTimeout != nil && lastActiveAt.timeIntervalSince(now) > activityClockSlack
    }

    /// Seconds by which recorded activity may be ahead of now without counting as a clock
    /// moved back: the rounding of stored times and two processes reading the clock a moment
    /// apart.
    public static let activityClockSlack: TimeInterval = 1
}

/// Everything `decide` needs, read in one go when the vault is opened or resumed.
public enum VaultSnapshot: Sendable, Equatable {
    /// No current session, and why.
    case empty(MissingReason)
    /// The current session, the latest wall-clock time the vault had seen before this read,
    /// and the server clock offset (server minus local seconds) last measured.
    case session(Session, lastWallClock: Date, serverClockOffset: TimeInterval)
    /// The store cannot be trusted.
    case corrupted(CorruptionReason)
    /// The vault cannot be read right now.
    case unavailable(retryAfter: TimeInterval, detail: String)
}
