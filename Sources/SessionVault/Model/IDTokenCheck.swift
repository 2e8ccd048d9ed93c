import Foundation

/// The checks of an OpenID Connect ID token that do not need its signature (OIDC Core
/// §3.1.3.7, items 2–3, 9 and 11): `iss`, `aud` (and `azp`), `exp` and `nonce`.
///
/// The signature is **not** verified: no well-kept JOSE library is a dependency of SessionVault.
/// That is what OIDC Core §3.1.3.7 item 6 allows for an ID token received straight from the
/// token endpoint over TLS, as here; the session's identity is taken from the token endpoint's
/// answer only, never from a token that arrived any other way.
struct IDTokenCheck: Sendable {
    /// The issuer the token must name; nil skips the `iss` check (the app did not say).
    var issuer: String?
    /// The app's client id: `aud` must contain it, and a token for several audiences must name
    /// it in `azp`.
    var clientID: String
    /// The `nonce` the authorization request sent; nil when it sent none.
    var nonce: String?
    /// How far `exp` may lie in the past, for clock skew between the server and the device.
    var leeway: TimeInterval = 60

    /// The first claim that does not hold, by name (`"nonce"`, `"iss"`, `"aud"`, `"azp"`,
    /// `"exp"`, or `"format"` for a token without claims), or nil when all hold. Never quotes a
    /// value.
    func failure(of idToken: String, now: Date) -> String? {
        let claims = JWTClaims.decode(idToken)
        guard !claims.isEmpty else { return "format" }
        if let nonce {
            guard let stated = claims["nonce"] as? String,
                Sodium.constantTimeEqual(Array(stated.utf8), Array(nonce.utf8))
            else { return "nonce" }
        }
        if let issuer, claims["iss"] as? String != issuer { return "iss" }
        let audiences: [String]
        if let single = claims["aud"] as? String {
            audiences = [single]
        } else if let list = claims["aud"] as? [String] {
            audiences = list
        } else {
            return "aud"
        }
        guard audiences.contains(clientID) else { return "aud" }
        if claims["azp"] != nil, claims["azp"] as? String != clientID { return "azp" }
        if audiences.count > 1, claims["azp"] == nil { return "azp" }
        guard let exp = (claims["exp"] as? NSNumber)?.doubleValue, exp.isFinite,
            exp + leeway > now.timeIntervalSince1970
        else { return "exp" }
        return nil
    }
}
