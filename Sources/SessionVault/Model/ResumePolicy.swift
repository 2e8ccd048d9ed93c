import Foundation

/// The limits that decide the resume path, and the three things the vault does with a session
/// besides deciding (what sign-out clears, how often activity is written, how many audit events
/// are kept). Defaults come from the auth contracts SessionVault serves (Supabase GoTrue: 1 h
/// access tokens, 30-day refresh tokens, refresh 5–10 min early).
public struct ResumePolicy: Sendable, Equatable, Codable {
    /// The refresh-ahead margin: an access token closer than this to expiry counts as expiring,
    /// so the app refreshes ahead of time. Default 5 minutes.
    ///
    /// The margin shrinks with the lifetime the server granted: it is never more than a quarter
    /// of that lifetime (`refreshAheadShare`), so a token that lives 300 s (Keycloak's default)
    /// is refreshed 75 s before its expiry and one that lives 60 s 15 s before it, never at once.
    /// A token is never refreshed because of its own short life alone: see `refreshDue(for:)`.
    public var minimumAccessTTL: TimeInterval = 5 * 60
    /// The access-token lifetime assumed when the token response states none (no `expires_in`,
    /// no `expires_at`, no `exp` claim in a JWT access token). Default 1 hour, GoTrue's and most
    /// servers' default; a shorter real lifetime shows as a 401 `invalid_token` on an API call,
    /// which `handleAPIFailure` answers with one refresh.
    public var assumedAccessTokenLifetime: TimeInterval = 3600
    /// The shortest time between receiving an access token and refreshing it ahead of its
    /// expiry: a token that lives barely longer than the margin is used until it nearly expires,
    /// not refreshed at once. The auto-refresh loop never refreshes sooner than this after a
    /// token arrived, even one that is already dead. `refreshNow()` is not bound by it.
    /// Default 30 seconds.
    public var minimumRefreshInterval: TimeInterval = 30
    /// Refresh-token lifetime assumed when the server states none. Default 30 days.
    public var refreshTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// Inactivity after which the user must unlock again (biometric if enabled, else password);
    /// tokens are kept. nil: no idle limit. Default 30 minutes.
    public var idleTimeout: TimeInterval? = 30 * 60
    /// Tenant policy: time after sign-in past which only a full login helps; tokens are cleared.
    /// A session is never silently extended beyond it. nil: no absolute limit. Default nil.
    public var absoluteLifetime: TimeInterval?
    /// How far the wall clock may go back before the vault treats it as moved back on purpose.
    /// Default 2 minutes.
    public var clockSkewTolerance: TimeInterval = 120
    /// How long a server's refusals of the refresh without a verdict on the grant (a 4xx naming
    /// no error the library knows) may last before the session ends: a refusal answered at least
    /// this long after the first one recorded ends it (`login(refreshRejected)`). One refusal
    /// never ends a session, nor does a clock moved back; an HTML page or a 5xx is not a
    /// refusal. Default 24 hours.
    public var refusalLimit: TimeInterval = 24 * 3600
    /// When biometric unlock (if enabled) prompts: after an absence only (default), or before
    /// every refresh too.
    public var biometricPrompt: BiometricPromptPolicy = .afterIdle

    // MARK: What the vault does with a session besides deciding its path

    /// Whether sign-out also clears the "unlock with biometrics" preference. Default false:
    /// the preference belongs to the device owner, not to the session.
    public var clearsBiometricPreferenceOnSignOut = false
    /// How often, at most, `touch()` writes the last-active time; in between it is kept in memory.
    /// Default 15 seconds, well under any idle timeout.
    public var lastActiveWriteInterval: TimeInterval = 15
    /// Audit log rows kept; older rows are deleted. Default 1000.
    public var auditLogCapacity = 1000

    /// The documented defaults; change a property after creating it (`var policy = ResumePolicy()`).
    public init() {}
}

/// When a session with biometric unlock enabled asks the user for biometrics.
public enum BiometricPromptPolicy: String, Sendable, Equatable, Codable {
    /// Only after an absence: when the idle timeout passed (or the app is told the user left).
    /// Inside the idle window a live session refreshes silently, as the auth contract's
    /// "Session valid? → auto-refresh if needed" describes. The default.
    case afterIdle
    /// Before every refresh as well: stricter, and prompts about once per access-token lifetime
    /// of continuous use.
    case beforeEveryRefresh
}

extension ResumePolicy {
    /// The least lifetime an access token must have left to be handed out when the refresh ahead
    /// of its expiry failed for the network or the server (`freshAccessToken()`,
    /// `backgroundAccessToken()`): 10 seconds, time for one API request to arrive with it.
    public static let liveTokenFloor: TimeInterval = 10

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
