#if canImport(LocalAuthentication)
import LocalAuthentication
import SessionVault

/// The biometric prompt, for `ResumeManager(…, biometrics: FaceIDGate())`.
struct FaceIDGate: BiometricGate {
    func currentDomainState() async -> [UInt8]? {
        let context = LAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        return context.evaluatedPolicyDomainState.map(Array.init)
    }

    func authenticate(reason: String) async -> BiometricResult {
        do {
            return try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason)
                ? .success : .failed
        } catch let error as LAError where error.code == .userCancel || error.code == .appCancel {
            return .cancelled
        } catch {
            return .unavailable
        }
    }
}

extension SessionLayer {
    /// After a successful online sign-in, when the user opts in: records the enrolment, so a
    /// new finger or face later ends the session (`.login(reason: .biometryChanged, …)`).
    func enableBiometricUnlock(gate: FaceIDGate) async throws {
        try await manager.vault.setBiometricUnlock(true, domainState: await gate.currentDomainState())
    }
}
#endif
