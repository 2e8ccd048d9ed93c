import Foundation

extension ResumePolicy {
    /// The largest share of an access token's granted lifetime the refresh-ahead margin may take.
    public static let refreshAheadShare = 0.25

    /// How long before its expiry an access token that lived `lifetime` seconds is refreshed:
    /// `minimumAccessTTL`, at most a quarter of the lifetime. With the lifetime unknown (a
    /// session stored by a release that did not record when its token arrived) the margin is
    /// `minimumAccessTTL`.
    public func refreshMargin(forLifetime lifetime: TimeInterval?) -> TimeInterval {
        guard let lifetime else { return max(0, minimumAccessTTL) }
        guard lifetime.isFinite, lifetime > 0 else { return 0 }
        return max(0, min(minimumAccessTTL, lifetime * Self.refreshAheadShare))
    }

    /// When the session's access token is due for an automatic refresh: its expiry minus the
    /// refresh-ahead margin, and never sooner than `minimumRefreshInterval` after it arrived.
    /// Nil when no access token is stored (a refresh is due now).
    ///
    /// Why the floor: a token whose whole life fits inside the margin (or a server answering
    /// `expires_in: 0`) would otherwise be due the moment it arrived, and every call would
    /// refresh again: a storm of requests, each a durable write.
    public func refreshDue(for session: Session) -> Date? {
        guard let expiry = session.accessExpiresAt, session.accessTokenFingerprint != nil else { return nil }
        let lifetime = session.accessIssuedAt.map { expiry.timeIntervalSince($0) }
        let due = expiry.addingTimeInterval(-refreshMargin(forLifetime: lifetime))
        guard let issued = session.accessIssuedAt, minimumRefreshInterval.isFinite else { return due }
        return max(due, issued.addingTimeInterval(max(0, minimumRefreshInterval)))
    }
}
