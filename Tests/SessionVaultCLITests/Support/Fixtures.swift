import Foundation

/// Token responses whose token values are recognisable markers, so every test can scan the
/// CLI's output for them.
enum Fixtures {
    static let refreshMarker = "v1.REFRESHTOKENMARKER"
    static let accessMarker = "ACCESSTOKENMARKER"
    static let tokenMarkers = [refreshMarker, accessMarker, "REFRESHTOKENMARKER"]

    /// 2027-01-15T08:00:00Z, the sign-in time the tests use.
    static let signIn = "2027-01-15T08:00:00Z"
    static let signInSeconds = 1_800_000_000

    /// A GoTrue password-grant response (access token a JWT for user-123).
    static func goTrueJSON(refresh: String = "\(refreshMarker)-1", expiresIn: Int = 3600) -> Data {
        let access = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImlzcyI6Imh0dHBzOi8vcHJvamVjdC5zdXBhYmFzZS5jby9hdXRoL3YxIn0.\(accessMarker)"
        return Data("""
        {"access_token":"\(access)","token_type":"bearer","expires_in":\(expiresIn),"expires_at":\(signInSeconds + expiresIn),
         "refresh_token":"\(refresh)",
         "user":{"id":"user-123","email":"mentor@example.org","role":"authenticated",
                 "app_metadata":{"provider":"email","roles":["peer_mentor"],"tenant_id":"tenant-9"},
                 "user_metadata":{"full_name":"Kari Nordmann"}}}
        """.utf8)
    }

    /// A plain RFC 6749 §5.1 response: opaque access token, subject in the ID token.
    static func oauthJSON() -> Data {
        // id_token claims: {"sub":"oauth-user","iss":"https://idp.example","email":"o@example.org"}
        let idToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJvYXV0aC11c2VyIiwiaXNzIjoiaHR0cHM6Ly9pZHAuZXhhbXBsZSIsImVtYWlsIjoib0BleGFtcGxlLm9yZyJ9.sig"
        return Data("""
        {"access_token":"opaque-\(accessMarker)","token_type":"Bearer","expires_in":600,"refresh_token":"\(refreshMarker)-oauth","scope":"openid email","id_token":"\(idToken)"}
        """.utf8)
    }
}
