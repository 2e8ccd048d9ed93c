import Foundation

extension ResumeManager {
    /// The opt-in after an online sign-in, as seed 001's flow draws it ("Enable Biometric? →
    /// Yes → Store Token Securely"): call it when the user said yes. It prompts once with the
    /// manager's `BiometricGate` (so the user proves the biometrics work before the app relies
    /// on them), then records the enrolment with the session (`Vault.setBiometricUnlock`): a
    /// new finger or face later ends the session (`.login(reason: .biometryChanged, …)`). The
    /// tokens are in the vault already; nothing else is stored.
    ///
    /// - Parameter reason: the text the prompt shows.
    /// - Returns: the prompt's result; biometric unlock is on only after `.success`. Without a
    ///   gate the answer is `.unavailable` and nothing changes.
    /// - Throws: `.noSession` when nobody is signed in; what the vault's write throws.
    @discardableResult
    public func enableBiometricUnlock(reason: String) async throws(VaultError) -> BiometricResult {
        let vault = try self.vault
        guard try await vault.currentSession() != nil else { throw .noSession }
        guard let biometrics else { return .unavailable }
        let result = await biometrics.authenticate(reason: reason)
        guard result == .success else { return result }
        let domainState = await biometrics.currentDomainState()
        // Checked again after the prompt: the user may have signed out meanwhile.
        guard try await vault.currentSession() != nil else { throw .noSession }
        try await vault.setBiometricUnlock(true, domainState: domainState)
        return .success
    }
}
