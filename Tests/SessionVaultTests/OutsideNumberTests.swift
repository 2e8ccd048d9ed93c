import CSodium
import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Every number from outside (a server's token response, the header's Argon2id limits) is
/// range-checked into a typed error: never a trap, never a hang, and nothing the vault accepts is
/// later read back as damage.
@Suite("Numbers from outside: typed errors, never a trap")
struct OutsideNumberTests {
    /// JSON forms of values no field may take: beyond Int64, huge, negative, fractional, text.
    static let extremes = [
        "9223372036854775807", "-9223372036854775808", "\"9223372036854775807\"", "\"-9223372036854775808\"",
        "1e16", "-1e16", "4e18", "1e300", "-1e300", "\"1e16\"", "\"NaN\"", "\"nan\"", "\"inf\"", "\"\"",
        "-1", "\"-1\"", "1.5", "3600.25", "true", "[]", "{}"
    ]

    static let fields = ["expires_in", "expires_at", "refresh_expires_in"]

    static func body(_ field: String, _ value: String) -> Data {
        Data(
            #"{"access_token":"a-\#(Fixtures.accessMarker)","refresh_token":"\#(Fixtures.refreshMarker)-x","\#(field)":\#(value),"user":{"id":"user-123"}}"#
                .utf8)
    }

    @Test func theParserRefusesEachFieldsExtremesByName() {
        for field in Self.fields {
            for value in Self.extremes {
                #expect(throws: TokenResponseError.invalidField(field), "\(field) = \(value)") {
                    try TokenResponse(json: Self.body(field, value))
                }
            }
        }
    }

    @Test func theParserAcceptsTheEdgesOfEachRange() throws {
        for (field, range) in [
            ("expires_in", TokenResponse.lifetimeRange), ("expires_at", TokenResponse.unixTimeRange),
            ("refresh_expires_in", TokenResponse.lifetimeRange)
        ] {
            for value in [range.lowerBound, range.upperBound] {
                let response = try TokenResponse(json: Self.body(field, String(value)))
                let parsed = field == "expires_in" ? response.expiresIn : field == "expires_at" ? response.expiresAt : response.refreshExpiresIn
                #expect(parsed == value, "\(field)")
                #expect(throws: Never.self, "\(field) as a string") { try TokenResponse(json: Self.body(field, "\"\(value)\"")).checkRanges() }
            }
            #expect(throws: TokenResponseError.invalidField(field)) { try TokenResponse(json: Self.body(field, String(range.upperBound + 1))) }
        }
        // A whole number written as a double is still a whole number.
        #expect(try TokenResponse(json: Self.body("expires_in", "3600.0")).expiresIn == 3600)
    }

    /// Responses built by hand (the public initializer) with values the parser would refuse.
    static func handBuilt(refresh: String) throws -> [(String, TokenResponse)] {
        let access = try Token("access-\(refresh)"), refreshToken = try Token(refresh)
        func response(expiresIn: Int64? = 3600, expiresAt: Int64? = nil, refreshExpiresIn: Int64? = nil) -> TokenResponse {
            TokenResponse(
                accessToken: access, expiresIn: expiresIn, expiresAt: expiresAt,
                refreshToken: refreshToken, refreshExpiresIn: refreshExpiresIn,
                identity: SessionIdentity(subject: "user-123"))
        }
        return [
            ("expires_in", response(expiresIn: .max)), ("expires_in", response(expiresIn: .min)),
            ("expires_in", response(expiresIn: 10_000_000_000_000_000)), ("expires_in", response(expiresIn: -1)),
            ("expires_at", response(expiresIn: nil, expiresAt: 10_000_000_000_000_000)),
            ("expires_at", response(expiresIn: nil, expiresAt: -10_000_000_000_000_000)),
            ("expires_at", response(expiresIn: nil, expiresAt: .min)),
            ("refresh_expires_in", response(refreshExpiresIn: 10_000_000_000_000_000)),
            ("refresh_expires_in", response(refreshExpiresIn: .max)),
            ("refresh_expires_in", response(refreshExpiresIn: -1))
        ]
    }

    @Test func storeAndRotateRefuseOutOfRangeResponsesAtTheDoor() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        for (field, response) in try Self.handBuilt(refresh: "r-store") {
            await #expect(throws: VaultError.invalidTokenResponse(.invalidField(field)), "store with \(field)") {
                try await vault.store(response)
            }
        }
        let stored = try await vault.store(Fixtures.goTrue())
        for (field, response) in try Self.handBuilt(refresh: "r-rotate") {
            await #expect(throws: VaultError.invalidTokenResponse(.invalidField(field)), "rotate with \(field)") {
                try await vault.rotate(response)
            }
        }
        #expect(try await vault.currentSession() == stored, "a refused rotate leaves the session as it was")
        await vault.close()
    }

    /// A value accepted, then read back as damage: `refresh_expires_in: -1` was stored, and the
    /// next open called the row damaged (refresh expiry before issue) and wiped it. It is now
    /// refused at the door, and every value the door lets through reopens cleanly.
    @Test func whatStoreOrRotateAcceptsTheNextOpenAccepts() async throws {
        #expect(throws: TokenResponseError.invalidField("refresh_expires_in")) {
            try TokenResponse(json: Self.body("refresh_expires_in", "-1"))
        }
        let edges: [(Int64?, Int64?, Int64?)] = [
            (0, nil, 0), (TokenResponse.lifetimeRange.upperBound, TokenResponse.unixTimeRange.upperBound, TokenResponse.lifetimeRange.upperBound),
            (nil, 0, nil), (nil, TokenResponse.unixTimeRange.upperBound, 0), (nil, nil, nil)
        ]
        for (index, (expiresIn, expiresAt, refreshExpiresIn)) in edges.enumerated() {
            let fixture = TestVault()
            func response(_ refresh: String) throws -> TokenResponse {
                TokenResponse(
                    accessToken: try Token("access-\(refresh)"), expiresIn: expiresIn, expiresAt: expiresAt,
                    refreshToken: try Token(refresh), refreshExpiresIn: refreshExpiresIn,
                    identity: SessionIdentity(subject: "user-123"))
            }
            let vault = try fixture.open()
            try await vault.store(try response("stored-\(index)"))
            await vault.close()
            let reopened = try fixture.open(create: false)
            #expect(try await reopened.currentSession() != nil, "case \(index): reopened after store")
            // A clock moved back before the rotate must not make the row look damaged either.
            fixture.clock.advance(by: -7200)
            try await reopened.rotate(try response("rotated-\(index)"))
            await reopened.close()
            let again = try fixture.open(create: false)
            #expect(try await again.currentSession()?.tokenVersion == 2, "case \(index): reopened after rotate")
            await again.close()
        }
    }

    /// A refresh server answering with such values: the app gets a typed outcome, never a trap
    /// after its refresh token was spent. Runs the resume in a child process, so a trap shows as
    /// that process's signal rather than killing the test run.
    @Test(arguments: [
        #""expires_in":"9223372036854775807""#, #""expires_in":1e16"#, #""expires_in":4e18"#,
        #""expires_at":1e16"#, #""expires_at":-1e16"#, #""refresh_expires_in":1e16"#, #""refresh_expires_in":-1"#,
        #""expires_in":-1e300"#, #""expires_at":"NaN""#
    ])
    func aRefreshAnsweredWithExtremeNumbersGivesATypedOutcome(_ numbers: String) async throws {
        let fixture = TestVault()
        let server = try ScriptedHTTPServer()
        defer { server.stop() }
        // The host runs on the system clock: an access token that is already expired there.
        let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
        try await vault.store(Fixtures.goTrue(expiresIn: 0))
        await vault.close()
        server.enqueue(.json(#"{"access_token":"access-rotated","token_type":"bearer","refresh_token":"rotated",\#(numbers)}"#))
        let host = try TestHostProcess(
            ["resume", fixture.path, fixture.keyPath, server.baseURL.appendingPathComponent("auth/v1").absoluteString],
            scratch: fixture.directory)
        let status = await host.finish(timeout: 60)
        #expect(!host.crashed, "the resume trapped (\(numbers))")
        #expect(status == 0, "\(numbers): \(host.output)")
        #expect(server.requestCount == 1)
        let outcome = host.lines.first ?? ""
        #expect(outcome.hasPrefix("login") || outcome.hasPrefix("offline") || outcome.hasPrefix("unavailable"), "\(numbers): \(outcome)")
    }

    /// Argon2id limits read from the header, which anyone who can write the file controls:
    /// 2^63 bytes of memory trapped converting to Int; 2^32 - 1 passes ran for hours.
    @Test func argon2LimitsFromTheHeaderAreBounded() async throws {
        let fixture = TestVault()
        let passphrase = try Array("correct horse".utf8).withUnsafeBytes { try SecretBytes(copying: $0) }
        let provider = PassphraseKeyProvider(passphrase: passphrase, opsLimit: 1, memLimit: UInt64(crypto_pwhash_memlimit_min()))
        let vault = try Vault.open(at: fixture.path, keyProvider: provider, clock: fixture.clock.function)
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let original = try #require(try HeaderFile.read(at: fixture.files.header))
        guard case .argon2id(let salt, _, _) = original.derivation else { Issue.record("not a passphrase vault"); return }
        let cases: [(UInt64, UInt64)] = [
            (1, 1 << 63), (1, .max), (UInt64(UInt32.max), UInt64(crypto_pwhash_memlimit_min())),
            (.max, UInt64(crypto_pwhash_memlimit_min())), (0, UInt64(crypto_pwhash_memlimit_min())), (1, 0)
        ]
        for (ops, mem) in cases {
            var doctored = original
            doctored.derivation = .argon2id(salt: salt, opsLimit: ops, memLimit: mem)
            // Unsigned: the provider refuses the derivation before any tag is checked.
            _ = try HeaderFile.create(at: fixture.files.header, header: doctored, keys: nil)
            let outcome = await Deadline.run(seconds: 30) { () -> String in
                do throws(VaultError) {
                    _ = try Vault.open(at: fixture.path, keyProvider: provider, clock: fixture.clock.function, create: false)
                    return "opened"
                } catch {
                    if case .keyProvider(let providerError) = error, case .misconfigured = providerError { return "misconfigured" }
                    return "\(error)"
                }
            }
            guard case .finished(let result) = outcome else { Issue.record("ops \(ops) mem \(mem): still deriving after 30 s"); continue }
            #expect(result == "misconfigured", "ops \(ops) mem \(mem): \(result)")
            #expect(FileManager.default.fileExists(atPath: fixture.path), "refused, not wiped")
        }
        // The same bounds hold for a new vault's limits.
        let fresh = TestVault()
        #expect(throws: VaultError.self) {
            try Vault.open(at: fresh.path, keyProvider: PassphraseKeyProvider(passphrase: passphrase, opsLimit: 1, memLimit: 1 << 63))
        }
    }
}
