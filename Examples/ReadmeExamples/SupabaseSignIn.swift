import SessionVault

/// Supabase: e-mail and password in one call, for a manager made with `supabaseRefresher`.
/// Then seed 001's "Enable Biometric?" → Yes: one prompt, and the enrolment is recorded.
func supabaseSignIn(_ manager: ResumeManager, email: String, password: String, userWantsBiometrics: Bool) async -> String {
    do {
        try await manager.signIn(email: email, password: password)
        if userWantsBiometrics { _ = try? await manager.enableBiometricUnlock(reason: "Unlock your session") }
        return "home"
    } catch .invalidCredentials {
        return "Wrong e-mail or password."
    } catch .rateLimited(let retryAfter) {                // 5 attempts per 5 minutes
        return "Too many attempts. Try again in \(Int(retryAfter)) seconds."
    } catch .network {
        return "You are offline."
    } catch {
        return "Sign-in failed: \(error)"                 // never contains the password
    }
}
