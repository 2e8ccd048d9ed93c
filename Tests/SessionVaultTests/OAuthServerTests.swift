import Foundation
import Logging
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// OAuth2Refresher, rotation, reuse protection, revocation and the single flight against a real
/// authorization server: django-oauth-toolkit (Tests/Servers/oauth), started and stopped here.
/// Expiry comes from the vault's injected clock, never from waiting out the server's lifetime.
// Serialized: each test starts its own Django server, and eight at once on a shared two-core
// machine starve the other suites' multi-process tests of CPU.
@Suite("Real authorization server (django-oauth-toolkit): refresh, rotation, reuse, revocation, single flight", .serialized)
struct OAuthServerTests {
    /// The vault, its manual clock (at the real time: the server's tokens are real), and every
    /// line the library logged.
    struct Client {
        let fixture = TestVault()
        let clock = ManualClock(Date())
        let logs = RecordingLogHandler.Store()
        var logger: Logger { Logger(label: "oauth-tests") { [logs] _ in RecordingLogHandler(store: logs) } }
        /// No idle lock and a one-second minimum TTL: a refreshed session is valid until the
        /// test moves the clock on.
        var policy: ResumePolicy {
            var policy = ResumePolicy()
            policy.idleTimeout = nil
            policy.minimumAccessTTL = 1
            return policy
        }

        func open() throws -> Vault {
            try Vault.open(at: fixture.path, keyProvider: fixture.keys, policy: policy, clock: clock.function, logger: logger)
        }

        func manager(_ vault: Vault, server: OAuthTestServer, clientID: String? = nil, scope: String? = nil) -> ResumeManager {
            ResumeManager(
                vault: vault,
                refresher: OAuth2Refresher(
                    tokenEndpoint: server.tokenEndpoint, clientID: clientID ?? server.clientID, scope: scope,
                    revocationEndpoint: server.revocationEndpoint))
        }

        /// Moves past the access token's lifetime (the server's is seconds).
        func expire() { clock.advance(by: 60) }

        /// How many log lines contain any of `secrets`. Counted, never quoted: a failure must not
        /// print the token it found.
        func logLinesLeaking(_ secrets: [String]) -> Int {
            logs.all.filter { line in secrets.contains { line.contains($0) } }.count
        }
    }

    /// The tokens of a raw response, for replay and leak checks only (never printed).
    static func tokens(in json: Data) throws -> (access: String, refresh: String) {
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        return (try #require(object["access_token"] as? String), try #require(object["refresh_token"] as? String))
    }

    static func value(of token: Token?) -> String? { token.map { $0.withRevealedBytes { String(decoding: $0, as: UTF8.self) } } }

    static let pat = SessionIdentity(subject: "pat", email: "pat@example.org")

    @Test func plainResponseStoresWithTheAppsIdentityAndResumeStoresTheRotatedPair() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            let first = try await server.passwordGrant()
            let firstTokens = try Self.tokens(in: first)
            let response = try TokenResponse(json: first)
            #expect(response.identity == nil, "django-oauth-toolkit says nothing about the user")
            await #expect(throws: VaultError.invalidTokenResponse(.missingField("user.id or a sub claim"))) { try await vault.store(response) }
            let stored = try await vault.store(response, identity: Self.pat)
            #expect(stored.identity == Self.pat)
            #expect(stored.scope == "read")

            client.expire()
            let outcome = await client.manager(vault, server: server).resume()
            guard case .home(let refreshed) = outcome else { Issue.record("expected home, got \(outcome)"); return }
            #expect(refreshed.id == stored.id)
            #expect(refreshed.identity == Self.pat, "a refresh response without identity keeps the stored one")
            #expect(refreshed.tokenVersion == stored.tokenVersion + 1)
            #expect(refreshed.refreshTokenFingerprint != stored.refreshTokenFingerprint)
            #expect(refreshed.refreshPendingSince == nil)
            let newRefresh = try #require(Self.value(of: try await vault.refreshToken()))
            let newAccess = try #require(Self.value(of: try await vault.accessToken()))
            #expect(newRefresh != firstTokens.refresh, "the rotated refresh token is stored")
            #expect(newAccess != firstTokens.access)
            #expect(try await server.requestCounts()["refresh_token"] == 1)
            // Rotation at the server: the stored token is the live one, the first one is dead.
            let replay = try await server.refreshDirectly(firstTokens.refresh)
            #expect(replay.status == 400)
            #expect(client.logLinesLeaking([firstTokens.refresh, firstTokens.access, newRefresh, newAccess]) == 0, "a token reached a log line")
            #expect(client.logs.all.contains { $0.contains(refreshed.refreshTokenFingerprint?.hex ?? "none") })
        }
    }

    @Test func reusingTheOldRefreshTokenRevokesTheFamilyAndTheSessionEndsWithNoTokensKept() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            let first = try await server.passwordGrant()
            let firstTokens = try Self.tokens(in: first)
            try await vault.store(TokenResponse(json: first), identity: Self.pat)
            let manager = client.manager(vault, server: server)
            client.expire()
            guard case .home = await manager.resume() else { Issue.record("the first refresh failed"); return }
            let rotated = try #require(Self.value(of: try await vault.refreshToken()))

            // A stale copy of the first refresh token is replayed: reuse protection revokes
            // every token of this grant, the rotated one in the vault too.
            let replay = try await server.refreshDirectly(firstTokens.refresh)
            #expect(replay.status == 400)
            #expect(AuthErrorBody(replay.body).error == "invalid_grant")

            client.expire()
            #expect(await manager.resume() == .login(reason: .refreshRejected, showExpiredMessage: true))
            #expect(try await vault.currentSession() == nil)
            #expect(try await vault.refreshToken() == nil, "the vault keeps no dead refresh token")
            #expect(try await vault.accessToken() == nil, "the vault keeps no dead access token")
            #expect(try await server.requestCounts()["refresh_token"] == 3, "refresh, replay, refused refresh")
            #expect(client.logLinesLeaking([firstTokens.refresh, firstTokens.access, rotated]) == 0, "a token reached a log line")
        }
    }

    @Test func signOutRevokesAndTheServerThenRefusesTheRefreshToken() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            try await vault.store(TokenResponse(json: try await server.passwordGrant()), identity: Self.pat)
            let copy = try #require(Self.value(of: try await vault.refreshToken()))
            let result = try await client.manager(vault, server: server).signOut(scope: .local)
            #expect(result.server == .ended)
            #expect(try await vault.currentSession() == nil)
            #expect(try await vault.refreshToken() == nil)
            #expect(try await server.requestCounts()["revoke"] == 1, "sign-out sent one RFC 7009 revocation")
            let refused = try await server.refreshDirectly(copy)
            #expect(refused.status == 400, "the server refuses the revoked refresh token")
            #expect(AuthErrorBody(refused.body).error == "invalid_grant")
            #expect(client.logLinesLeaking([copy]) == 0, "a token reached a log line")
        }
    }

    /// Revoked at the server while the vault still holds it (another device, an admin, the
    /// app's own RFC 7009 POST): the next refresh is refused and the session ends.
    @Test func aRefreshTokenRevokedAtTheServerIsRefusedAfterwards() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            try await vault.store(TokenResponse(json: try await server.passwordGrant()), identity: Self.pat)
            let token = try #require(try await vault.refreshToken())
            let copy = try #require(Self.value(of: token))
            #expect(try await server.revoke(token) == 200)
            #expect(try await server.requestCounts()["revoke"] == 1)

            let refused = try await server.refreshDirectly(copy)
            #expect(refused.status == 400, "the server refuses a revoked refresh token")
            client.expire()
            #expect(await client.manager(vault, server: server).resume() == .login(reason: .refreshRejected, showExpiredMessage: true))
            #expect(try await vault.refreshToken() == nil)
            #expect(client.logLinesLeaking([copy]) == 0, "a token reached a log line")
        }
    }

    @Test func aThousandConcurrentFreshTokenCallsSendOneRefresh() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            try await vault.store(TokenResponse(json: try await server.passwordGrant()), identity: Self.pat)
            let manager = client.manager(vault, server: server)
            client.expire()
            // 1,000 API calls at once, each asking for a fresh access token.
            let answers = await withTaskGroup(of: String.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        guard case .token(_, let session) = await manager.freshAccessToken() else { return "no token" }
                        return session.accessTokenFingerprint?.hex ?? "-"
                    }
                }
                var all: [String] = []
                for await answer in group { all.append(answer) }
                return all
            }
            #expect(Set(answers).count == 1, "every caller got the one refreshed access token: \(Set(answers))")
            #expect(answers.first == (try await vault.currentSession())?.accessTokenFingerprint?.hex)
            #expect(try await server.requestCounts()["refresh_token"] == 1, "one refresh reached the server")
        }
    }

    @Test func severalProcessesSendOneRefresh() async throws {
        // A long server lifetime: once one process has refreshed, the others must find the new
        // access token valid (their clocks run 600 s ahead, so the first one is expired).
        try await OAuthTestServer.with(accessTokenSeconds: 300) { server in
            let directory = TemporaryDirectory()
            let path = directory.file("vault.db"), keyPath = directory.file("vault.key")
            let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
            let first = try await server.passwordGrant()
            try await vault.store(TokenResponse(json: first), identity: Self.pat)
            await vault.close()

            let hosts = try (0..<3).map { _ in
                try TestHostProcess(["oauth-resume", path, keyPath, server.tokenEndpoint.absoluteString, server.clientID, "600"], scratch: directory)
            }
            var results: [String] = []
            for host in hosts {
                #expect(await host.finish() == 0, "\(host.output)")
                results.append(host.lines.first { $0.hasPrefix("home ") } ?? "no home line: \(host.output)")
            }
            #expect(Set(results).count == 1, "every process ended on the same rotated session: \(results)")
            #expect(results.first?.hasSuffix(" v2") == true)
            #expect(try await server.requestCounts()["refresh_token"] == 1, "one refresh reached the server")
            let firstTokens = try Self.tokens(in: first)
            #expect(
                hosts.filter { $0.output.contains(firstTokens.refresh) || $0.output.contains(firstTokens.access) }.isEmpty,
                "a process printed a token")
        }
    }

    @Test func aWrongClientIDKeepsTheTokensAndIsReportedAsMisconfiguration() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            let stored = try await vault.store(TokenResponse(json: try await server.passwordGrant()), identity: Self.pat)
            client.expire()
            let outcome = await client.manager(vault, server: server, clientID: "no-such-client").resume()
            guard case .unavailable(let retryAfter, let detail) = outcome else { Issue.record("expected unavailable, got \(outcome)"); return }
            #expect(detail.contains("invalid_client"))
            #expect(detail.contains("misconfigured"))
            #expect(retryAfter > 0)
            let kept = try #require(try await vault.currentSession(), "the session is kept")
            #expect(kept.refreshTokenFingerprint == stored.refreshTokenFingerprint)
            #expect(kept.refreshPendingSince == nil, "nothing was spent: no refresh is left pending")
            #expect(client.logs.all.contains { $0.contains("invalid_client") })

            // Fixed configuration: the kept token was valid all along.
            guard case .home(let refreshed) = await client.manager(vault, server: server).resume() else {
                Issue.record("the kept refresh token did not refresh"); return
            }
            #expect(refreshed.tokenVersion == stored.tokenVersion + 1)
        }
    }

    @Test func aRefusedScopeEndsTheSessionOnceWithItsOwnReason() async throws {
        try await OAuthTestServer.with { server in
            let client = Client()
            let vault = try client.open()
            try await vault.store(TokenResponse(json: try await server.passwordGrant(scope: "read")), identity: Self.pat)
            client.expire()
            // Asks for more than the grant covers (RFC 6749 §6): only a new sign-in can give it.
            let manager = client.manager(vault, server: server, scope: "read write")
            #expect(await manager.resume() == .login(reason: .scopeRejected, showExpiredMessage: false))
            #expect(try await vault.refreshToken() == nil)
            // No loop: the next resume finds no session and sends nothing.
            guard case .login = await manager.resume() else { Issue.record("expected login on the next resume"); return }
            #expect(try await server.requestCounts()["refresh_token"] == 1)
        }
    }
}
