/// Turns on sender-constrained sessions (DPoP, RFC 9449) for a `ResumeManager`: every sign-in
/// makes a proof key first, every token request carries a proof, and the tokens that come back
/// must be bound to the key (`token_type` `DPoP`). Off (nil) by default: a manager without one
/// behaves exactly as before.
public struct DPoPConfiguration: Sendable {
    /// Where the proof keys come from: `SoftwareProofKeyProvider()` (sealed in the vault) or an
    /// app's own (the Secure Enclave, see `ProofKeyProvider`).
    public let keyProvider: any ProofKeyProvider
    /// Whether a server that answers a proof with bearer tokens (`token_type` other than `DPoP`,
    /// a silent downgrade) is accepted: the session then goes on as a bearer session, and a
    /// warning is logged. Default false: such a sign-in fails with `.invalidResponse` and such a
    /// refresh ends the session (`refreshRejected`).
    public let acceptsBearerDowngrade: Bool
    /// The servers' nonces, shared by every proof this configuration's manager makes.
    let nonces = DPoPNonceStore()
    /// The authorization server's clock as measured by this configuration's manager.
    let serverClock = DPoPServerClock()

    /// - Parameters:
    ///   - keyProvider: makes and finds the proof keys; the default keeps a software P-256 key
    ///     sealed in the vault.
    ///   - acceptsBearerDowngrade: accept bearer tokens from a server that ignored the proof.
    public init(keyProvider: any ProofKeyProvider = SoftwareProofKeyProvider(), acceptsBearerDowngrade: Bool = false) {
        self.keyProvider = keyProvider
        self.acceptsBearerDowngrade = acceptsBearerDowngrade
    }

    /// Whether `tokenType` (a token response's `token_type`) says the tokens are DPoP-bound.
    static func isBound(_ tokenType: String) -> Bool { tokenType.lowercased() == "dpop" }
}
