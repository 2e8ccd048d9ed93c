import Foundation

extension GoTrueRefresher: SessionTerminator {
    /// `POST {baseURL}/logout?scope=…` with the access token as bearer: GoTrue ends the session
    /// (and, for `global` / `others`, the user's other sessions) and revokes its refresh tokens.
    /// GoTrue authenticates the logout with the access token, so `ResumeManager.signOut` hands
    /// this a live one (refreshing first when the stored one is dead or nearly so).
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        await endServerSession(refreshToken: refreshToken, accessToken: accessToken, scope: scope, prover: nil)
    }

    /// The logout of a DPoP-bound session: its access token as `Authorization: DPoP <token>`
    /// with a proof by `prover` (htm POST, htu the logout URL, ath), never as a bearer token
    /// (RFC 9449 §7.1). Nil `prover`: a bearer session, `Authorization: Bearer <token>`.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope, prover: DPoPProver?) async -> ServerSignOut {
        guard let accessToken else { return .accessTokenRejected }
        var components = URLComponents(url: baseURL.appendingPathComponent("logout"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "scope", value: scope.rawValue)]
        guard let url = components?.url else { return .failed("invalid base URL") }
        var headers = ["apikey": apiKey]
        if let prover {
            do {
                headers["DPoP"] = try prover.proof(method: "POST", url: url, accessToken: accessToken, server: .authorization)
            } catch {
                return .failed("no DPoP proof could be made for the logout (\(error)); nothing sent")
            }
        }
        // URLRequest takes header values as Strings: the token passes through one, briefly.
        headers["Authorization"] = accessToken.withRevealedBytes { (prover == nil ? "Bearer " : "DPoP ") + String(decoding: $0, as: UTF8.self) }
        switch await transport.sendForStatus(url, headers: headers, body: nil) {
        case .answered(let status, let body): return AuthErrorBody.classifyLogout(status: status, body: body)
        case .unanswered(let outcome): return outcome
        }
    }

    /// GoTrue's logout is authenticated by the access token.
    public var endsSessionWithAccessToken: Bool { true }
}
