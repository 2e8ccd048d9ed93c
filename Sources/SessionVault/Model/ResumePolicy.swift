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
