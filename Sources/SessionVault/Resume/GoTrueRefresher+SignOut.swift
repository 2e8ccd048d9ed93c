import Foundation

extension GoTrueRefresher: SessionTerminator {
    /// `POST {baseURL}/logout?scope=…` with the access token as bearer: GoTrue ends the session
    /// (and, for `global` / `others`, the user's other sessions) and revokes its refresh tokens.
    public func endServerSession(refreshToken: Token?, accessToken: Token?, scope: SignOutScope) async -> ServerSignOut {
        guard let accessToken else { return .alreadyEnded }
        var components = URLComponents(url: baseURL.appendingPathComponent("logout"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "scope", value: scope.rawValue)]
        guard let url = components?.url else { return .failed("invalid base URL") }
        // URLRequest takes header values as Strings: the token passes through one, briefly.
        let bearer = accessToken.withRevealedBytes { "Bearer " + String(decoding: $0, as: UTF8.self) }
        return await transport.sendForStatus(url, headers: ["apikey": apiKey, "Authorization": bearer], body: nil)
    }
}
