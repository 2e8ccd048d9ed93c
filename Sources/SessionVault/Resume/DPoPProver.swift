import Foundation

/// Makes DPoP proofs (RFC 9449) with one session's proof key: the compact JWS a request carries
/// in its `DPoP` header.
///
/// Header `{"typ":"dpop+jwt","alg":"ES256","jwk":<public key>}`, claims `jti` (16 random bytes
/// from libsodium, so no two proofs share one, in any process), `htm`, `htu` (the URL without
/// query and fragment), `iat` (the server's time as the device estimates it, see
/// `DPoPServerClock`), and `nonce` when the server gave one, `ath` when the request
/// carries an access token. The shipped refreshers send one with every token request when the
/// manager has a `DPoPConfiguration`; a custom `SessionRefresher` gets it in
/// `refresh(using:prover:)`.
public struct DPoPProver: Sendable {
    let key: any ProofSigningKey
    /// The key's RFC 7638 thumbprint (`jkt`): what the server binds the tokens to.
    public let thumbprint: String
    private let jwk: String
    let nonces: DPoPNonceStore
    /// The manager's clock (the device's), which `iat` follows, corrected by `serverClock`.
    let clock: @Sendable () -> Date
    let serverClock: DPoPServerClock
    /// The server clock offset the vault recorded, until this process measures one.
    let recordedClockOffset: TimeInterval?

    /// nil when the key's public key is not a 64-byte P-256 point.
    init?(
        key: any ProofSigningKey, nonces: DPoPNonceStore, clock: @escaping @Sendable () -> Date = { Date() },
        serverClock: DPoPServerClock = DPoPServerClock(), recordedClockOffset: TimeInterval? = nil
    ) {
        let publicKey = key.publicKeyXY
        guard let jwk = JWKThumbprint.canonicalJWK(publicKeyXY: publicKey),
            let thumbprint = JWKThumbprint.thumbprint(publicKeyXY: publicKey)
        else { return nil }
        self.key = key
        self.jwk = jwk
        self.thumbprint = thumbprint
        self.nonces = nonces
        self.clock = clock
        self.serverClock = serverClock
        self.recordedClockOffset = recordedClockOffset
    }

    /// The `iat` a proof made now carries: the server's time as estimated from the device's.
    var issuedAt: Int64 { issuedAt(for: .authorization) }

    /// The `iat` of a proof for `server`: dated by that server's measured clock.
    func issuedAt(for server: DPoPNonceStore.Server) -> Int64 {
        serverClock.issuedAt(deviceNow: clock(), recorded: recordedClockOffset, server: server)
    }

    /// Records the `Date` of an answer to a request signed with this prover (a custom
    /// `SessionRefresher` calls it for its token endpoint's answers, as the shipped refreshers
    /// do): the next proofs are dated by it.
    /// - Returns: true when the latest proof was dated more than a few seconds away from the
    ///   server's clock. A proof refused as `invalid_dpop_proof` is then worth sending once more
    ///   with a new proof (once, never in a loop); for any other answer ignore it.
    public func noteServerDate(_ date: Date) -> Bool {
        serverClock.measure(serverDate: date, deviceNow: clock())
    }

    /// A proof for one request.
    ///
    /// - Parameters:
    ///   - method: the request's method (`htm`), e.g. `POST`.
    ///   - url: the request's URL; `htu` is it without query and fragment.
    ///   - accessToken: the access token the request carries (`Authorization: DPoP …`); its
    ///     SHA-256 goes into `ath`. Nil for a token request.
    /// - Returns: the value of the `DPoP` header. The nonce it carries is the authorization
    ///   server's for a token request, a resource server's for a request with an access token.
    public func proof(method: String, url: URL, accessToken: Token? = nil) throws(ProofKeyError) -> String {
        try proof(method: method, url: url, accessToken: accessToken, server: accessToken == nil ? .authorization : .resource)
    }

    /// A proof carrying the nonce of `server` (a logout carries an access token to the
    /// authorization server).
    func proof(method: String, url: URL, accessToken: Token?, server: DPoPNonceStore.Server) throws(ProofKeyError) -> String {
        var claims: [String] = [
            #""jti":"\#(JWKThumbprint.base64URL(Sodium.randomBytes(16)))""#,
            #""htm":"\#(JSONText.string(method))""#,
            #""htu":"\#(JSONText.string(Self.targetURI(url)))""#,
            #""iat":\#(issuedAt(for: server))"#
        ]
        if let nonce = nonces.nonce(for: url, server: server) { claims.append(#""nonce":"\#(JSONText.string(nonce))""#) }
        if let accessToken { claims.append(#""ath":"\#(accessToken.withRevealedBytes { JWKThumbprint.hash($0) })""#) }
        let header = #"{"typ":"dpop+jwt","alg":"ES256","jwk":\#(jwk)}"#
        let signingInput = JWKThumbprint.base64URL(Array(header.utf8)) + "." + JWKThumbprint.base64URL(Array("{\(claims.joined(separator: ","))}".utf8))
        let signature = try key.signature(for: Array(signingInput.utf8))
        guard signature.count == 64 else { throw .failed("the key gave a \(signature.count)-byte signature, not ES256's 64") }
        return signingInput + "." + JWKThumbprint.base64URL(signature)
    }

    /// Remembers an authorization server's `DPoP-Nonce` (from a token request's answer) for the
    /// next token requests to it (this process, in memory).
    public func remember(nonce: String, for url: URL) {
        nonces.remember(nonce, for: url, server: .authorization)
    }

    /// `htu`: the URL without its query and fragment (RFC 9449 §4.2), as the server compares it
    /// (RFC 3986 §6.2.2-6.2.3 normalization): absolute (a URL relative to a base is resolved
    /// first, its relative part alone names no resource), scheme and host lowercased, no
    /// userinfo (never in a signed claim), no port when it is the scheme's default.
    static func targetURI(_ url: URL) -> String {
        let absolute = url.absoluteURL
        guard var components = URLComponents(url: absolute, resolvingAgainstBaseURL: true) else { return absolute.absoluteString }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        components.host = components.host?.lowercased()
        if let port = components.port, (scheme == "https" && port == 443) || (scheme == "http" && port == 80) {
            components.port = nil
        }
        return components.url?.absoluteString ?? absolute.absoluteString
    }
}
