import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Refreshes a Supabase GoTrue session: `POST {baseURL}/token?grant_type=refresh_token` with
/// JSON `{"refresh_token": …}` and the project's `apikey` header.
public struct GoTrueRefresher: SessionRefresher {
    /// The project's auth URL, e.g. `https://<project>.supabase.co/auth/v1`.
    public let baseURL: URL
    let apiKey: String
    let transport: HTTPRefreshTransport

    /// - Parameters:
    ///   - baseURL: the auth URL, e.g. `https://<project>.supabase.co/auth/v1`.
    ///   - apiKey: the project's anon (publishable) key, sent as `apikey`.
    ///   - session: the `URLSession` requests go through.
    ///   - timeout: seconds per request.
    public init(baseURL: URL, apiKey: String, session: URLSession = .shared, timeout: TimeInterval = 15) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.transport = HTTPRefreshTransport(session: session, timeout: timeout)
    }

    public func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        try await refresh(using: refreshToken, prover: nil)
    }

    /// The refresh with a DPoP proof on the request when `prover` is given.
    public func refresh(using refreshToken: Token, prover: DPoPProver?) async throws(RefreshError) -> RefreshedTokens {
        var components = URLComponents(url: baseURL.appendingPathComponent("token"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "grant_type", value: "refresh_token")]
        guard let url = components?.url else { throw .network("invalid base URL") }
        var body = Data(#"{"refresh_token":""#.utf8)
        refreshToken.withRevealedBytes { body.append(contentsOf: JSONText.escaped($0)) }
        body.append(contentsOf: Array(#""}"#.utf8))
        return try await transport.post(url, headers: [
            "apikey": apiKey,
            "Content-Type": "application/json",
            "Accept": "application/json",
        ], body: body, prover: prover)
    }
}
