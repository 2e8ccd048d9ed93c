import Foundation
import SessionVaultTestSupport
@testable import SessionVault

/// Token responses and vaults shared by the tests. Token values are recognisable markers so a
/// test can scan files and output for them.
enum Fixtures {
    static let refreshMarker = "v1.REFRESHTOKENMARKER"
    static let accessMarker = "ACCESSTOKENMARKER"

    /// A GoTrue password-grant response (shape from the auth contract).
    static func goTrueJSON(access: String = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImlzcyI6Imh0dHBzOi8vcHJvamVjdC5zdXBhYmFzZS5jby9hdXRoL3YxIn0.\(accessMarker)",
                           refresh: String = "\(refreshMarker)-1", expiresIn: Int = 3600, expiresAt: Int = 1_800_003_600) -> Data {
        Data("""
        {"access_token":"\(access)","token_type":"bearer","expires_in":\(expiresIn),"expires_at":\(expiresAt),
         "refresh_token":"\(refresh)",
         "user":{"id":"user-123","email":"mentor@example.org","role":"authenticated",
                 "app_metadata":{"provider":"email","roles":["peer_mentor"],"tenant_id":"tenant-9"},
                 "user_metadata":{"full_name":"Kari Nordmann"}}}
        """.utf8)
    }

    static func goTrue(refresh: String = "\(refreshMarker)-1", access: String? = nil, expiresIn: Int = 3600) throws -> TokenResponse {
        if let access { return try TokenResponse(json: goTrueJSON(access: access, refresh: refresh, expiresIn: expiresIn)) }
        return try TokenResponse(json: goTrueJSON(refresh: refresh, expiresIn: expiresIn))
    }

    /// A plain RFC 6749 §5.1 response with an opaque access token and no user.
    static func oauthJSON(refresh: String = "\(refreshMarker)-oauth", subjectInIDToken: Bool = true) -> Data {
        // id_token claims: {"sub":"oauth-user","iss":"https://idp.example","email":"o@example.org"}
        let idToken = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJvYXV0aC11c2VyIiwiaXNzIjoiaHR0cHM6Ly9pZHAuZXhhbXBsZSIsImVtYWlsIjoib0BleGFtcGxlLm9yZyJ9.sig"
        return Data("""
        {"access_token":"opaque-\(accessMarker)","token_type":"Bearer","expires_in":600,"refresh_token":"\(refresh)","scope":"openid email"\(subjectInIDToken ? ",\"id_token\":\"\(idToken)\"" : "")}
        """.utf8)
    }
}

/// A vault in a temporary directory with a key file, opened with a manual clock.
struct TestVault {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }
    var files: VaultFiles { VaultFiles(database: path) }

    func open(policy: ResumePolicy = .standard, create: Bool = true) throws -> Vault {
        try Vault.open(at: path, keyProvider: keys, policy: policy, clock: clock.function, create: create)
    }

    /// Every byte of the vault's files (database and sidecars).
    func allFileBytes() -> [String: Data] {
        var result: [String: Data] = [:]
        for path in [files.database, files.wal, files.sharedMemory, files.journal, files.header, files.tombstone] {
            if let data = FileManager.default.contents(atPath: path) { result[path] = data }
        }
        return result
    }
}

extension Data {
    func contains(_ text: String) -> Bool { range(of: Data(text.utf8)) != nil }
}
