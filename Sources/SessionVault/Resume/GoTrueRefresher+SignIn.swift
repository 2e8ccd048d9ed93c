import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension GoTrueRefresher {
    /// GoTrue's password sign-in, sent once: `POST {baseURL}/token?grant_type=password` with
    /// JSON `{"email": …, "password": …}` and the project's `apikey`. Stores nothing
    /// (`ResumeManager.signIn(email:password:biometricEnabled:)` does).
    ///
    /// The password goes from locked memory into the body without becoming a `String` again.
    func passwordSignIn(email: String, password: SecretBytes, prover: DPoPProver? = nil) async throws(SignInError) -> HTTPRefreshTransport.SignInAnswer {
        var components = URLComponents(url: baseURL.appendingPathComponent("token"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "grant_type", value: "password")]
        guard let url = components?.url else { throw .network("invalid base URL") }
        var body = Data(#"{"email":""#.utf8)
        body.append(contentsOf: JSONText.escaped(Array(email.utf8)))
        body.append(contentsOf: Array(#"","password":""#.utf8))
        password.withUnsafeBytes { body.append(contentsOf: JSONText.escaped($0)) }
        body.append(contentsOf: Array(#""}"#.utf8))
        return try await transport.postSignIn(url, headers: [
            "apikey": apiKey,
            "Content-Type": "application/json",
            "Accept": "application/json",
        ], body: body, codeExchange: false, prover: prover)
    }
}
