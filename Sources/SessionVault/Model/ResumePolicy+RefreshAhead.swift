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

    /// When the session's access token is due for a refresh: its expiry minus the refresh-ahead
    /// margin, but not before `minimumRefreshInterval` after it arrived unless it has expired by
    /// then. Nil when no access token is stored (a refresh is due now).
    ///
    /// Why the floor: a token that lives little longer than the margin would otherwise be due
    /// almost as soon as it arrived, and every call would refresh again (a storm of requests,
    /// each a durable write). A dead token is never handed out to wait for the floor: it is due
    /// at its expiry at the latest. The auto-refresh loop keeps the floor even then
    /// (`automaticRefreshDue(for:)`), so a server that grants no lifetime at all costs one
    /// refresh per `minimumRefreshInterval`, not one per turn of the loop.
    public func refreshDue(for session: Session) -> Date? {
        guard let expiry = session.accessExpiresAt, session.accessTokenFingerprint != nil else { return nil }
        let lifetime = session.accessIssuedAt.map { expiry.timeIntervalSince($0) }
        let early = expiry.addingTimeInterval(-refreshMargin(forLifetime: lifetime))
        guard let floor = floorAfterReceipt(of: session) else { return early }
        return max(early, min(expiry, floor))
    }

    /// When the auto-refresh loop refreshes the session's token: `refreshDue(for:)`, and never
    /// sooner than `minimumRefreshInterval` after the token arrived.
    public func automaticRefreshDue(for session: Session) -> Date? {
        guard let due = refreshDue(for: session) else { return nil }
        guard let floor = floorAfterReceipt(of: session) else { return due }
        return max(due, floor)
    }

    private func floorAfterReceipt(of session: Session) -> Date? {
        guard let issued = session.accessIssuedAt, minimumRefreshInterval.isFinite else { return nil }
        return issued.addingTimeInterval(max(0, minimumRefreshInterval))
    }
}
