/// The app's biometric prompt (LocalAuthentication on Apple platforms, BiometricPrompt on
/// Android), injected into `ResumeManager`.
public protocol BiometricGate: Sendable {
    /// The platform's opaque enrolment value (`LAContext.evaluatedPolicyDomainState`); nil
    /// when the platform has none. A change means fingers or faces were added or removed.
    func currentDomainState() async -> [UInt8]?

    /// Shows the prompt and reports how it ended.
    func authenticate(reason: String) async -> BiometricResult
}
