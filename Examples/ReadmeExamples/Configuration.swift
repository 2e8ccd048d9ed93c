import Foundation
import Logging
import SessionVault

/// Policy, clock and logger are given once, to whatever opens the vault: here the manager.
func configuredManager(path: String, keyProvider: any KeyProvider, refresher: any SessionRefresher,
                       biometrics: (any BiometricGate)?, now: @escaping @Sendable () -> Date = { Date() }) -> ResumeManager {
    var policy = ResumePolicy()                         // documented defaults
    policy.minimumAccessTTL = 5 * 60                    // refresh ahead: 5–10 min before expiry
    policy.refreshTokenLifetime = 30 * 86400            // when the server does not state one
    policy.idleTimeout = 30 * 60                        // → expired(.idle): unlock again, tokens kept
    policy.absoluteLifetime = 12 * 3600                 // tenant policy → missing(.absoluteLifetimePassed)
    policy.clockSkewTolerance = 120                     // a clock moved back further → expired(.clockRolledBack)
    policy.clearsBiometricPreferenceOnSignOut = false   // the preference belongs to the device owner
    policy.biometricPrompt = .afterIdle                 // .beforeEveryRefresh prompts before every refresh
    return ResumeManager(path: path, keyProvider: keyProvider, refresher: refresher, biometrics: biometrics,
                         policy: policy,
                         clock: now,                                        // tests and previews move it by hand
                         logger: Logger(label: "com.example.app.session"))  // fingerprints only, never a token
}

/// Supabase GoTrue: the project's auth URL and anon key. Its responses name their user.
func supabaseRefresher(project: String, anonKey: String) -> GoTrueRefresher? {
    guard let auth = URL(string: "https://\(project).supabase.co/auth/v1") else { return nil }
    return GoTrueRefresher(baseURL: auth, apiKey: anonKey)
}
