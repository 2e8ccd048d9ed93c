import Foundation

extension GoTrueRefresher: SessionTerminator {
    /// `POST {baseURL}/logout?scope=…` with the access token as bearer: GoTrue ends the session
    /// (and, for `global` / `others`, the user's other sessions) and revokes its refresh tokens.
    /// GoTrue authenticates the logout with the access token, so `ResumeManager.signOut` hands
    /// this a live one (refreshing first when the stored one is dead or nearly so).
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        guard let accessToken else { return .accessTokenRejected }
        var components = URLComponents(url: baseURL.appendingPathComponent("logout"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "scope", value: scope.rawValue)]
        guard let url = components?.url else { return .failed("invalid base URL") }
        // URLRequest takes header values as Strings: the token passes through one, briefly.
        let bearer = accessToken.withRevealedBytes { "Bearer " + String(decoding: $0, as: UTF8.self) }
        switch await transport.sendForStatus(url, headers: ["apikey": apiKey, "Authorization": bearer], body: nil) {
        case .answered(let status, let body): return AuthErrorBody.classifyLogout(status: status, body: body)
        case .unanswered(let outcome): return outcome
        }
    }

    /// GoTrue's logout is authenticated by the access token.
    public var endsSessionWithAccessToken: Bool { true }
}
