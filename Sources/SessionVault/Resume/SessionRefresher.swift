import Foundation

/// Exchanges a refresh token for new tokens at the authorization server.
/// SessionVault ships `GoTrueRefresher` and `OAuth2Refresher`.
public protocol SessionRefresher: Sendable {
    /// Sends the refresh token once. Implementations must not retry on their own: a rotating
    /// refresh token dies on second use, and retries are the `ResumeManager`'s decision.
    func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens

    /// Sends the refresh token once with a DPoP proof made by `prover` (nil: none), as
    /// `refresh(using:)` otherwise. The shipped refreshers put the proof in the `DPoP` header,
    /// remember the server's `DPoP-Nonce`, report each answer's `Date` to
    /// `DPoPProver.noteServerDate(_:)`, and retry once on `use_dpop_nonce` or on an
    /// `invalid_dpop_proof` that call said was dated off the server's clock. The default ignores
    /// the prover and calls `refresh(using:)`: the bearer tokens such a refresher brings back are
    /// then reported as a downgrade (see `DPoPConfiguration.acceptsBearerDowngrade`).
    func refresh(using refreshToken: Token, prover: DPoPProver?) async throws(RefreshError) -> RefreshedTokens
}

extension SessionRefresher {
    /// Ignores `prover`: a refresher that cannot send proofs.
    public func refresh(using refreshToken: Token, prover: DPoPProver?) async throws(RefreshError) -> RefreshedTokens {
        try await refresh(using: refreshToken)
    }
}

/// A successful refresh: the new tokens and, when the server sent one, its `Date` header
/// (used to measure the server clock offset).
public struct RefreshedTokens: Sendable {
    /// The token endpoint's answer.
    public var response: TokenResponse
    /// The response's `Date` header, when present: the vault records the server's clock offset.
    public var serverDate: Date?

    /// What a custom `SessionRefresher` returns.
    public init(response: TokenResponse, serverDate: Date? = nil) {
        self.response = response
        self.serverDate = serverDate
    }
}
