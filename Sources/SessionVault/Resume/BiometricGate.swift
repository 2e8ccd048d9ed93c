/// The app's biometric prompt (LocalAuthentication on Apple platforms, BiometricPrompt on
/// Android), injected into `ResumeManager`.
public protocol BiometricGate: Sendable {
    /// The platform's opaque enrolment value (`LAContext.evaluatedPolicyDomainState`); nil
    /// when the platform has none. A change means fingers or faces were added or removed.
    func currentDomainState() async -> [UInt8]?

    /// Shows the prompt and reports how it ended.
    func authenticate(reason: String) async -> BiometricResult
}

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
