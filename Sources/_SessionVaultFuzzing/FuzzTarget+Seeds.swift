import Foundation
import SessionVault

extension FuzzTarget {
    /// Writes the seed corpus of `target` into `directory` (`make fuzz-corpus`) and returns how
    /// many files it wrote. The files that the library makes are made by it, for real: the key
    /// file (`KeyFileProvider.create`), the generation record and the header (signed with the
    /// reference key), the tombstone (`Tombstone.write`), and the vault-open fixture itself.
    /// Server answers (token responses, error bodies, JWTs) are written in the shapes the
    /// library's own tests and refreshers exchange with GoTrue and RFC 6749 servers.
    public static func writeSeeds(for target: Name, into directory: String) throws -> Int {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let seeds: [(name: String, bytes: [UInt8])]
        switch target {
        case .tokenResponse: seeds = try tokenResponseSeeds()
        case .jwtClaims: seeds = jwtSeeds()
        case .authError: seeds = authErrorSeeds()
        case .keyFile: seeds = try keyFileSeeds()
        case .header: seeds = try headerSeeds()
        case .tombstone: seeds = try tombstoneSeeds()
        case .vaultOpen: seeds = vaultOpenSeeds()
        }
        for seed in seeds {
            guard FuzzScratch.shared.put(seed.bytes, at: (directory as NSString).appendingPathComponent(seed.name)) else {
                throw FuzzSetupError(detail: "could not write \(seed.name)")
            }
        }
        return seeds.count
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func json(_ object: Any) -> [UInt8] {
        ((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)).map { $0 }
    }

    private static func jwt(_ claims: [String: Any]) -> String {
        base64URL(json(["alg": "HS256", "typ": "JWT"])) + "." + base64URL(json(claims)) + "." + base64URL(Array("not-a-signature".utf8))
    }

    private static var goTrueClaims: [String: Any] {
        [
            "sub": "8d3c1f0e-5a4b-4c2d-9e8f-0a1b2c3d4e5f", "iss": "https://project.supabase.co/auth/v1", "aud": "authenticated",
            "email": "peer@example.org", "role": "authenticated", "exp": 1_763_900_000, "session_id": "3f2e1d0c"
        ]
    }

    private static func tokenResponseSeeds() throws -> [(name: String, bytes: [UInt8])] {
        let user: [String: Any] = [
            "id": "8d3c1f0e-5a4b-4c2d-9e8f-0a1b2c3d4e5f", "email": "peer@example.org", "role": "authenticated",
            "app_metadata": ["provider": "email", "roles": ["mentor", "peer"], "tenant_id": "school-7"],
            "user_metadata": ["full_name": "Peer Supporter", "locale": "en"]
        ]
        return [
            (
                "gotrue-sign-in.json",
                json([
                    "access_token": jwt(goTrueClaims), "token_type": "bearer", "expires_in": 3600,
                    "expires_at": 1_763_900_000, "refresh_token": "v1.MR5tZ2Jr3q-7fVqL", "user": user
                ])
            ),
            (
                "gotrue-refresh.json",
                json([
                    "access_token": jwt(goTrueClaims), "token_type": "bearer", "expires_in": 3600,
                    "expires_at": 1_763_900_000, "refresh_token": "v1.N8qW2e-Xy7"
                ])
            ),
            (
                "rfc6749.json",
                json([
                    "access_token": "2YotnFZFEjr1zCsicMWpAA", "token_type": "Bearer", "expires_in": 3600,
                    "refresh_token": "tGzv3JOkF0XG5Qx2TlKWIA", "scope": "read write"
                ])
            ),
            (
                "rfc6749-id-token.json",
                json([
                    "access_token": "SlAV32hkKG", "token_type": "Bearer", "expires_in": "300",
                    "refresh_expires_in": 1800, "refresh_token": "8xLOxBtZp8",
                    "id_token": jwt(["sub": "user-42", "iss": "https://auth.example.org", "name": "Peer", "tid": "t-1"])
                ])
            ),
            ("rfc6749-no-refresh.json", json(["access_token": jwt(["sub": "user-42", "exp": 1_763_900_000]), "token_type": "Bearer"]))
        ]
    }

    private static func jwtSeeds() -> [(name: String, bytes: [UInt8])] {
        [
            ("gotrue.jwt", Array(jwt(goTrueClaims).utf8)),
            ("oidc.jwt", Array(jwt(["sub": "user-42", "iss": "https://auth.example.org", "tid": "t-1", "name": "Peer", "exp": 1_763_900_000]).utf8)),
            ("nested.jwt", Array(jwt(["sub": "u", "app_metadata": ["roles": ["a", "b"]], "amr": [["method": "password", "timestamp": 1]]]).utf8)),
            ("opaque.txt", Array("2YotnFZFEjr1zCsicMWpAA".utf8))
        ]
    }

    private static func authErrorSeeds() -> [(name: String, bytes: [UInt8])] {
        func seed(_ status: Int, header: String?, _ body: String) -> [UInt8] {
            let index = UInt8(authErrorStatuses.firstIndex(of: status) ?? 0)
            guard let header else { return [index, 255] + Array(body.utf8) }
            let text = Array(header.utf8.prefix(254))
            return [index, UInt8(text.count)] + text + Array(body.utf8)
        }
        return [
            ("429-body.bin", seed(429, header: nil, #"{"error":"rate_limited","retry_after":30}"#)),
            ("429-header.bin", seed(429, header: "120", #"{"message":"Too many requests"}"#)),
            (
                "401-gotrue.bin",
                seed(401, header: nil, #"{"code":401,"error_code":"refresh_token_not_found","msg":"Invalid Refresh Token: Refresh Token Not Found"}"#)
            ),
            ("400-invalid-grant.bin", seed(400, header: nil, #"{"error":"invalid_grant","error_description":"Token is not active"}"#)),
            ("400-invalid-client.bin", seed(400, header: nil, #"{"error":"invalid_client","error_description":"Client authentication failed"}"#)),
            ("401-app-contract.bin", seed(401, header: nil, #"{"success":false,"error":{"code":"SESSION_EXPIRED","message":"Session expired"}}"#)),
            ("403-auth-required.bin", seed(403, header: nil, #"{"success":false,"error":{"code":"AUTH_REQUIRED","message":"Sign in"}}"#)),
            (
                "401-invalid-token.bin",
                seed(401, header: #"Bearer realm="api", error="invalid_token", error_description="expired""#, #"{"error":"invalid_token"}"#)
            ),
            ("401-text.bin", seed(401, header: nil, "jwt expired")),
            ("503.bin", seed(503, header: "5", "<html>unavailable</html>"))
        ]
    }

    private static func keyFileSeeds() throws -> [(name: String, bytes: [UInt8])] {
        let path = FuzzScratch.shared.path("seed.key")
        try? FileManager.default.removeItem(atPath: path)
        _ = try KeyFileProvider.create(at: path)
        let keyFile = try FileIO.read(path)
        try? FileManager.default.removeItem(atPath: path)
        guard let keys = referenceKeys else { throw FuzzSetupError(detail: "no reference key") }
        let record = GenerationWitness(vaultID: (0..<16).map { UInt8($0 &* 13) }, generation: 7).encoded(keys: keys)
        // What a wipe stopped between the key's overwrite and its unlink leaves: the one file
        // that is not ours by its magic and still reads as a missing key, not a foreign one.
        let shredded = [UInt8](repeating: 0, count: KeyFileProvider.fileSize)
        return [("key-file.bin", [0] + keyFile), ("shredded-key.bin", [0] + shredded), ("generation-record.bin", [1] + record)]
    }

    private static func headerSeeds() throws -> [(name: String, bytes: [UInt8])] {
        guard let keys = referenceKeys else { throw FuzzSetupError(detail: "no reference key") }
        let path = FuzzScratch.shared.path("seed.header")
        var seeds: [(name: String, bytes: [UInt8])] = []
        let stored = try HeaderFile.create(at: path, header: VaultHeader(generation: 1, derivation: .stored, keyCheckValue: keys.keyCheckValue), keys: keys)
        seeds.append(("created.header", try FileIO.read(path)))
        try stored.recordGeneration(5)
        seeds.append(("generation-5.header", try FileIO.read(path)))
        let passphrase = VaultHeader(
            generation: 2, derivation: .argon2id(salt: (0..<16).map { UInt8($0) }, opsLimit: 3, memLimit: 67_108_864),
            keyCheckValue: keys.keyCheckValue)
        _ = try HeaderFile.create(at: path, header: passphrase, keys: keys)
        seeds.append(("argon2id.header", try FileIO.read(path)))
        var pending = passphrase
        pending.rekeyPending = true
        _ = try HeaderFile.create(at: path, header: pending, keys: nil)
        seeds.append(("unsigned-rekey-pending.header", try FileIO.read(path)))
        try? FileManager.default.removeItem(atPath: path)
        return seeds
    }

    private static func tombstoneSeeds() throws -> [(name: String, bytes: [UInt8])] {
        let path = FuzzScratch.shared.path("seed.tombstone")
        var seeds: [(name: String, bytes: [UInt8])] = []
        for (kind, detail) in [
            (CorruptionKind.damagedPage, "page 3 failed authentication (HMAC): altered or damaged on disk"),
            (.rollback, "the database is at generation 4 but the header saw 6"),
            (.keyMissing, "no key file at /var/lib/app/vault.key")
        ] {
            try Tombstone(reason: kind, detail: detail, wipedAt: Date(timeIntervalSince1970: 1_763_900_000)).write(to: path)
            seeds.append(("\(kind.rawValue).json", try FileIO.read(path)))
        }
        // Not the library's own output: times Foundation's lenient ISO 8601 reading on Linux
        // took and its writing did not give back (findings, kept as seeds): a fraction of a
        // second, a seven-digit year with text after it.
        for (name, time) in [("fraction", "2025-11-23T12:13:20.5Z"), ("long-year", "2050000-01-01T00:00:00Z-11-23T12:13:20Z")] {
            let json = #"{"detail":"d","reason":"rollback","version":"0.1.0","wipedAt":"\#(time)"}"#
            seeds.append(("\(name).json", Array(json.utf8)))
        }
        try? FileManager.default.removeItem(atPath: path)
        return seeds
    }

    private static func vaultOpenSeeds() -> [(name: String, bytes: [UInt8])] {
        let page = Int(VaultHeader.cipherPageSize)
        let programs: [(String, [VaultMutation])] = [
            ("unchanged", []),
            ("page-1-flipped", [VaultMutation(file: .database, offset: 100, kind: .flip([1]))]),
            ("page-3-flipped", [VaultMutation(file: .database, offset: 2 * page + 200, kind: .flip([0x80]))]),
            ("database-cut", [VaultMutation(file: .database, offset: 2 * page, kind: .truncate)]),
            ("wal-header-only", [VaultMutation(file: .wal, offset: 32, kind: .truncate)]),
            ("wal-cut-in-frame", [VaultMutation(file: .wal, offset: 32 + 24 + page / 2, kind: .truncate)]),
            ("wal-salt-changed", [VaultMutation(file: .wal, offset: 16, kind: .overwrite([0, 0, 0, 0]))]),
            ("header-slot-flipped", [VaultMutation(file: .header, offset: 20, kind: .flip([4]))]),
            ("wal-and-header", [VaultMutation(file: .wal, offset: 32, kind: .truncate), VaultMutation(file: .header, offset: 148, kind: .flip([1]))])
        ]
        return programs.map { ($0.0 + ".bin", $0.1.flatMap(\.encoded)) }
    }
}
