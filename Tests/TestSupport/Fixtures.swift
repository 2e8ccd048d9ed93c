import Foundation
import SessionVault
import SessionVaultTesting

/// Token responses shared by the tests of the library and of the CLI. Token values are
/// recognisable markers, so a test can scan files and output for them.
public enum Fixtures {
    public static let refreshMarker = "v1.REFRESHTOKENMARKER"
    public static let accessMarker = "ACCESSTOKENMARKER"
    /// Every marker a leaked token would show, the bare one too.
    public static let tokenMarkers = [refreshMarker, accessMarker, "REFRESHTOKENMARKER"]

    /// 2027-01-15T08:00:00Z, the sign-in time the tests use (also where `ManualClock` starts).
    public static let signIn = "2027-01-15T08:00:00Z"
    public static let signInSeconds = 1_800_000_000

    /// A GoTrue password-grant response (shape from the auth contract; by default the access
    /// token is a JWT for user-123, expiring an hour after `signIn`).
    public static func goTrueJSON(
        access: String = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImlzcyI6Imh0dHBzOi8vcHJvamVjdC5zdXBhYmFzZS5jby9hdXRoL3YxIn0.\(accessMarker)",
        refresh: String = "\(refreshMarker)-1", expiresIn: Int = 3600, expiresAt: Int = signInSeconds + 3600
    ) -> Data {
        Data(
            """
            {"access_token":"\(access)","token_type":"bearer","expires_in":\(expiresIn),"expires_at":\(expiresAt),
             "refresh_token":"\(refresh)",
             "user":{"id":"user-123","email":"mentor@example.org","role":"authenticated",
                     "app_metadata":{"provider":"email","roles":["peer_mentor"],"tenant_id":"tenant-9"},
                     "user_metadata":{"full_name":"Kari Nordmann"}}}
            """.utf8)
    }

    /// `goTrueJSON`, parsed.
    public static func goTrue(refresh: String = "\(refreshMarker)-1", access: String? = nil, expiresIn: Int = 3600) throws -> TokenResponse {
        if let access { return try TokenResponse(json: goTrueJSON(access: access, refresh: refresh, expiresIn: expiresIn)) }
        return try TokenResponse(json: goTrueJSON(refresh: refresh, expiresIn: expiresIn))
    }

    /// A plain RFC 6749 §5.1 response with an opaque access token and no user; the subject is
    /// in the ID token unless `subjectInIDToken` is false.
    public static func oauthJSON(refresh: String = "\(refreshMarker)-oauth", subjectInIDToken: Bool = true) -> Data {
        // id_token claims: {"sub":"oauth-user","iss":"https://idp.example","email":"o@example.org"}
        let idToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJvYXV0aC11c2VyIiwiaXNzIjoiaHR0cHM6Ly9pZHAuZXhhbXBsZSIsImVtYWlsIjoib0BleGFtcGxlLm9yZyJ9.sig"
        return Data(
            """
            {"access_token":"opaque-\(accessMarker)","token_type":"Bearer","expires_in":600,"refresh_token":"\(refresh)","scope":"openid email"\(subjectInIDToken ? ",\"id_token\":\"\(idToken)\"" : "")}
            """.utf8)
    }
}
