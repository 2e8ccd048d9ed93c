/// How a biometric prompt ended.
public enum BiometricResult: Sendable, Equatable {
    /// The user was recognised.
    case success
    /// Not recognised.
    case failed
    /// The user dismissed the prompt.
    case cancelled
    /// No biometrics on this device right now (not enrolled, locked out, no hardware).
    case unavailable
}
