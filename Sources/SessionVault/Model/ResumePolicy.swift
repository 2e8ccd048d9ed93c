import Foundation

/// The limits that decide the resume path. Defaults come from the auth contracts SessionVault
/// serves (Supabase GoTrue: 1 h access tokens, 30-day refresh tokens, refresh 5–10 min early).
public struct ResumePolicy: Sendable, Equatable, Codable {
    /// An access token closer than this to expiry counts as expired, so the app refreshes ahead
    /// of time. Default 5 minutes.
    public var minimumAccessTTL: TimeInterval = 5 * 60
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
    /// Whether sign-out also clears the "unlock with biometrics" preference. Default false:
    /// the preference belongs to the device owner, not to the session.
    public var clearsBiometricPreferenceOnSignOut = false
    /// `touch()` writes the last-active time at most this often; in between it is kept in memory.
    /// Default 15 seconds, well under any idle timeout.
    public var touchCoalescingInterval: TimeInterval = 15
    /// When biometric unlock (if enabled) prompts: after an absence only (default), or before
    /// every refresh too.
    public var biometricPrompt: BiometricPromptPolicy = .afterIdle
    /// Audit log rows kept; older rows are deleted. Default 1000.
    public var auditLogCapacity = 1000

    /// The documented defaults (the same as `standard`).
    public init() {}

    /// The defaults.
    public static let standard = ResumePolicy()
}
