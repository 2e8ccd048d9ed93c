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
