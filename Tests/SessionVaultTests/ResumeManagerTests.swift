import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The resume flow against a real HTTP server on 127.0.0.1 and real vault files.
@Suite("ResumeManager: expired → unlock → refresh → home, every refresh error class")
struct ResumeManagerTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    static func refreshed(_ refresh: String, expiresIn: Int = 3600) -> String {
        #"{"access_token":"access-\#(refresh)","token_type":"bearer","expires_in":\#(expiresIn),"expires_at":1900000000,"refresh_token":"\#(refresh)","user":{"id":"user-123"}}"#
    }

    /// No idle limit by default, so "an hour later" tests the access-token expiry alone.
    static let noIdle: ResumePolicy = {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        return policy
    }()

    func manager(biometrics: (any BiometricGate)? = nil, policy: ResumePolicy = noIdle, timeout: TimeInterval = 5) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL.appendingPathComponent("auth/v1"), apiKey: "anon-key", timeout: timeout),
            biometrics: biometrics, policy: policy, clock: fixture.clock.function,
            backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    /// Stores a session and moves the clock past its access token's expiry.
    func storeExpiredSession(biometric: Bool = false, domainState: [UInt8]? = nil) async throws -> Session {
        let vault = try fixture.open()
        let session = try await vault.store(Fixtures.goTrue(), biometricEnabled: biometric)
        if biometric { try await vault.setBiometricUnlock(true, domainState: domainState) }
        await vault.close()
        fixture.clock.advance(by: 3600 + 1)
        return session
    }

    @Test func aValidSessionGoesHomeWithoutAnyNetworkCall() async throws {
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue())
        await vault.close()
        let outcome = await manager().resume()
        #expect(outcome == .home(stored))
        #expect(server.requestCount == 0)
    }

    @Test func anExpiredSessionIsRefreshedAndTheRotatedTokensStored() async throws {
        let before = try await storeExpiredSession()
        server.enqueue(.json(Self.refreshed("rotated-1")))
        let outcome = await manager().resume()
        guard case .home(let session) = outcome else { Issue.record("expected home, got \(outcome)"); return }
        #expect(session.tokenVersion == before.tokenVersion + 1)
        #expect(session.refreshTokenFingerprint != before.refreshTokenFingerprint)
        #expect(session.accessExpiresAt == fixture.clock.now.addingTimeInterval(3600))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/auth/v1/token?grant_type=refresh_token")
        #expect(request.header("apikey") == "anon-key")
        #expect(request.bodyString == #"{"refresh_token":"\#(Fixtures.refreshMarker)-1"}"#)
        // Durable: a new process (reopen) sees the rotated tokens.
        let reopened = try fixture.open()
        let token = try #require(try await reopened.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "rotated-1")
    }

    @Test func aHundredConcurrentResumesMakeExactlyOneRefreshCall() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(Self.refreshed("rotated-once"), delay: 0.3))
        server.defaultResponse = .json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#)
        let manager = manager()
        let outcomes = await withTaskGroup(of: ResumeOutcome.self) { group in
            for _ in 0..<100 { group.addTask { await manager.resume() } }
            var all: [ResumeOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(server.requestCount == 1)
        let fingerprints = Set(
            outcomes.compactMap { outcome -> String? in
                if case .home(let session) = outcome { return session.refreshTokenFingerprint?.hex }
                return nil
            })
        #expect(outcomes.count == 100)
        #expect(fingerprints.count == 1, "every caller got the same rotated session: \(outcomes.filter { if case .home = $0 { return false }; return true })")
    }

    @Test(arguments: [
        (400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#, MissingReason.refreshRejected, true),
        (400, #"{"code":400,"error_code":"refresh_token_not_found","msg":"Invalid Refresh Token: Refresh Token Not Found"}"#, .refreshRejected, true),
        (401, #"{"success":false,"error":{"code":"SESSION_EXPIRED","message":"Ihre Sitzung ist abgelaufen."}}"#, .sessionExpired, true),
        (401, #"{"success":false,"error":{"code":"AUTH_REQUIRED","message":"Authentication required"}}"#, .authRequired, false),
        (403, #"{"error":"invalid_grant","error_description":"Token revoked"}"#, .refreshRejected, true)
    ])
    func aRejectedRefreshEndsTheSession(status: Int, body: String, reason: MissingReason, message: Bool) async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(status: status, body))
        let outcome = await manager().resume()
        #expect(outcome == .login(reason: reason, showExpiredMessage: message))
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() == nil, "tokens cleared")
        #expect(try await vault.snapshot() == .empty(reason))
    }

    /// A 401 at the token endpoint that is no verdict on the grant (`invalid_token` names the
    /// access token a refresh does not send) keeps the session: a refusal without a verdict.
    @Test func anInvalidTokenAnswerToARefreshIsNoVerdict() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(status: 401, #"{"error":"invalid_token","error_description":"JWT token is invalid or expired"}"#))
        let outcome = await manager().resume()
        guard case .renewalRefused = outcome else { Issue.record("got \(outcome)"); return }
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() != nil, "tokens kept")
    }

    @Test func rateLimitingKeepsTokensAndHonoursRetryAfter() async throws {
        let session = try await storeExpiredSession()
        server.enqueue(.json(status: 429, #"{"error":"rate_limit_exceeded","error_description":"Too many requests","retry_after":42}"#))
        let outcome = await manager().resume()
        guard case .offline(let kept, let retryAfter) = outcome else { Issue.record("expected offline, got \(outcome)"); return }
        #expect(kept.id == session.id)
        #expect(retryAfter == 42)
        let vault = try fixture.open()
        #expect(try await vault.refreshToken() != nil, "tokens kept")
        #expect(try await vault.currentSession()?.refreshPendingSince == nil, "the pending mark is cleared for the next attempt")
    }

    @Test(arguments: [ScriptedResponse.json(status: 503, #"{"error":"unavailable"}"#), .drop, ScriptedResponse.json(#"{}"#, delay: 3)])
    func serverTroubleIsOfflineNotExpiry(response: ScriptedResponse) async throws {
        let session = try await storeExpiredSession()
        server.enqueue(response)
        let outcome = await manager(timeout: 1).resume()
        guard case .offline(let kept, let retryAfter) = outcome else { Issue.record("expected offline, got \(outcome)"); return }
        #expect(kept.id == session.id)
        #expect(retryAfter >= 0)
        #expect(try await fixture.open().refreshToken() != nil, "tokens kept")
    }

    @Test func afterAnOutageTheNextRefreshSucceeds() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.drop)
        server.enqueue(.json(status: 502, "bad gateway"))
        server.enqueue(.json(Self.refreshed("after-outage")))
        let manager = manager()
        guard case .offline = await manager.resume() else { Issue.record("first attempt should be offline"); return }
        guard case .offline = await manager.refreshNow() else { Issue.record("second attempt should be offline"); return }
        guard case .home(let session) = await manager.refreshNow() else { Issue.record("third attempt should succeed"); return }
        #expect(session.tokenVersion == 2)
        #expect(server.requestCount == 3)
    }

    @Test func aBackgroundRefreshRetriesWithBackoffUntilItSucceeds() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.drop)
        server.enqueue(.json(status: 503, #"{"error":"unavailable"}"#))
        server.enqueue(.json(Self.refreshed("after-retries")))
        guard case .home(let session) = await manager().refreshInBackground(maxAttempts: 5) else { Issue.record("expected home"); return }
        #expect(session.tokenVersion == 2)
        #expect(server.requestCount == 3, "two failures, then the retry that succeeded")
    }

    @Test func aBackgroundRefreshStopsAtTheEndOfTheSession() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(status: 502, "bad gateway"))
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant"}"#))
        #expect(await manager().refreshInBackground(maxAttempts: 5) == .login(reason: .refreshRejected, showExpiredMessage: true))
        #expect(server.requestCount == 2, "no retry once the server ended the session")
    }

    @Test func anAppKilledMidRefreshReportsRefreshInterruptedNotCorruption() async throws {
        let session = try await storeExpiredSession()
        // The first process durably marks the refresh pending, sends it, then dies.
        do {
            let vault = try fixture.open()
            try await vault.markRefreshPending(sessionID: session.id, expectedVersion: session.tokenVersion)
            await vault.close()
        }
        fixture.clock.advance(by: 1)
        let reopened = try fixture.open()
        guard case .expired(_, .refreshInterrupted) = try await reopened.resumePath() else {
            Issue.record("expected expired(refreshInterrupted)"); return
        }
        await reopened.close()
        // The server had rotated the token before the app died: the old one is dead now.
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#))
        #expect(await manager().resume() == .login(reason: .refreshInterrupted, showExpiredMessage: true))
    }

    @Test func aLateRefreshResultNeverOverwritesTheNextUser() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(Self.refreshed("late-result"), delay: 0.5))
        let manager = manager()
        async let outcome = manager.resume()
        try await Task.sleep(nanoseconds: 150_000_000)
        // Meanwhile: sign out and a different user signs in on the same vault.
        let vault = try fixture.open()
        try await vault.signOut()
        let next = try await vault.store(TokenResponse(json: Fixtures.oauthJSON(refresh: "next-user")))
        let result = await outcome
        if case .home(let session) = result { #expect(session.id == next.id, "never the old user's late result") }
        let current = try #require(try await vault.currentSession())
        #expect(current.id == next.id)
        #expect(current.identity.subject == "oauth-user")
        let token = try #require(try await vault.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "next-user")
    }

    @Test func aLateIdentityLessResultNeverLandsInTheSameUsersNextSession() async throws {
        // Every new session starts at token version 1: only the session id tells them apart.
        _ = try await storeExpiredSession()
        server.enqueue(.json(#"{"access_token":"late-access","token_type":"bearer","expires_in":3600,"refresh_token":"late-refresh"}"#, delay: 0.5))
        let manager = manager()
        async let outcome = manager.resume()
        try await Task.sleep(nanoseconds: 150_000_000)
        let vault = try fixture.open()
        try await vault.signOut()
        let next = try await vault.store(Fixtures.goTrue(refresh: "same-user-again"))
        _ = await outcome
        let current = try #require(try await vault.currentSession())
        #expect(current.id == next.id)
        #expect(current.tokenVersion == 1, "the late result was not rotated into the new session")
        #expect(try #require(try await vault.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "same-user-again")
    }

    @Test func aLateRefusalNeverSignsOutTheNextSession() async throws {
        _ = try await storeExpiredSession()
        server.enqueue(.json(status: 400, #"{"error":"invalid_grant"}"#, delay: 0.5))
        let manager = manager()
        async let outcome = manager.resume()
        try await Task.sleep(nanoseconds: 150_000_000)
        let vault = try fixture.open()
        try await vault.signOut()
        let next = try await vault.store(Fixtures.goTrue(refresh: "next-session"))
        _ = await outcome
        #expect(try await vault.currentSession()?.id == next.id, "the next session survived the late invalid_grant")
    }

    @Test func aClockMovedBackThenRefreshedIsStillAHealthyVault() async throws {
        _ = try await storeExpiredSession()
        fixture.clock.advance(by: -3 * 3600)  // two hours before the sign-in
        server.enqueue(.json(Self.refreshed("after-rollback")))
        guard case .home = await manager().resume() else { Issue.record("expected home"); return }
        let reopened = try fixture.open()
        #expect(try await reopened.currentSession()?.tokenVersion == 2, "reopens cleanly, not as corrupted")
    }

    @Test func aServerStatedExpiryAlreadyPastIsExpiryNotCorruption() async throws {
        let vault = try fixture.open()
        let past = Int(fixture.clock.now.timeIntervalSince1970) - 60
        let response = try TokenResponse(
            json: Data(#"{"access_token":"a","token_type":"bearer","expires_at":\#(past),"refresh_token":"r","user":{"id":"u"}}"#.utf8))
        try await vault.store(response)
        guard case .expired(_, .accessTokenExpired) = try await vault.resumePath() else { Issue.record("expected expired"); return }
        await vault.close()
        #expect(try await fixture.open().currentSession() != nil)
    }

    @Test func theWrongKindOfKeyProviderNeverWipesTheVault() async throws {
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        var phrase = Array("a passphrase for another vault".utf8)
        let passphraseKeys = PassphraseKeyProvider(passphrase: try SecretBytes(consuming: &phrase))
        let manager = ResumeManager(
            path: fixture.path, keyProvider: passphraseKeys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "k"),
            clock: fixture.clock.function)
        guard case .unavailable = await manager.resume() else { Issue.record("expected unavailable"); return }
        #expect(try await fixture.open().currentSession() != nil, "the vault and its session are untouched")
    }

    // These run with the standard 30-minute idle timeout: an hour without activity is an
    // absence, and an absence is when the biometric prompt comes (see BiometricPromptPolicy).
    @Test func biometricUnlockComesBeforeTheRefresh() async throws {
        _ = try await storeExpiredSession(biometric: true, domainState: [1, 2, 3])
        let gate = ScriptedBiometricGate(result: .success, domainState: [1, 2, 3])
        server.enqueue(.json(Self.refreshed("after-unlock")))
        guard case .home = await manager(biometrics: gate, policy: ResumePolicy()).resume() else { Issue.record("expected home"); return }
        #expect(gate.promptCount == 1)
        #expect(server.requestCount == 1)
    }

    @Test func concurrentResumesShareOneBiometricPrompt() async throws {
        _ = try await storeExpiredSession(biometric: true, domainState: [1, 2, 3])
        let gate = ScriptedBiometricGate(result: .success, domainState: [1, 2, 3])
        server.enqueue(.json(Self.refreshed("one-prompt"), delay: 0.2))
        let manager = manager(biometrics: gate, policy: ResumePolicy())
        let outcomes = await withTaskGroup(of: ResumeOutcome.self) { group in
            for _ in 0..<10 { group.addTask { await manager.resume() } }
            var all: [ResumeOutcome] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(gate.promptCount == 1)
        #expect(server.requestCount == 1)
        #expect(
            outcomes.allSatisfy {
                if case .home = $0 { return true }; return false
            })
    }

    @Test(arguments: [BiometricResult.cancelled, .failed, .unavailable])
    func aFailedUnlockFailsClosedAndKeepsTokens(result: BiometricResult) async throws {
        _ = try await storeExpiredSession(biometric: true, domainState: [1, 2, 3])
        let gate = ScriptedBiometricGate(result: result, domainState: [1, 2, 3])
        #expect(await manager(biometrics: gate, policy: ResumePolicy()).resume() == .locked)
        #expect(server.requestCount == 0, "no refresh without unlock")
        #expect(try await fixture.open().refreshToken() != nil)
    }

    @Test func aChangedBiometricEnrolmentSendsTheUserToLoginAndClearsTheFlag() async throws {
        _ = try await storeExpiredSession(biometric: true, domainState: [1, 2, 3])
        let gate = ScriptedBiometricGate(result: .success, domainState: [9, 9, 9])
        #expect(await manager(biometrics: gate, policy: ResumePolicy()).resume() == .login(reason: .biometryChanged, showExpiredMessage: false))
        #expect(gate.promptCount == 0)
        let vault = try fixture.open()
        let next = try await vault.store(Fixtures.goTrue(refresh: "again"))
        #expect(!next.biometricEnabled, "the biometric flag was cleared")
    }

    @Test(arguments: [(7200, 1, 0), (1800, 2, 1)])
    func idleWithoutBiometricsLocksUntilThePasswordScreen(accessLifetime: Int, version: Int64, requests: Int) async throws {
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue(expiresIn: accessLifetime))
        await vault.close()
        fixture.clock.advance(by: 31 * 60)
        let manager = manager(policy: ResumePolicy())
        #expect(await manager.resume() == .locked)
        server.enqueue(.json(Self.refreshed("after-password")))
        // The access token still alive: home as is; expired meanwhile: refreshed first.
        guard case .home(let session) = await manager.resumeAfterUnlock() else { Issue.record("expected home"); return }
        #expect(session.tokenVersion == version)
        #expect(server.requestCount == requests)
    }

    @Test func anIdleSessionWithALiveAccessTokenNeedsOnlyTheUnlock() async throws {
        let vault = try fixture.open(policy: ResumePolicy())
        try await vault.store(Fixtures.goTrue(expiresIn: 7200), biometricEnabled: true)
        try await vault.setBiometricUnlock(true, domainState: [1, 2, 3])
        await vault.close()
        fixture.clock.advance(by: 31 * 60)
        let gate = ScriptedBiometricGate(result: .success, domainState: [1, 2, 3])
        guard case .home(let session) = await manager(biometrics: gate, policy: ResumePolicy()).resume() else {
            Issue.record("expected home"); return
        }
        #expect(gate.promptCount == 1)
        #expect(server.requestCount == 0, "the access token is still alive: no refresh")
        #expect(session.tokenVersion == 1)
    }

    @Test func theServerClockOffsetIsRecordedFromTheDateHeader() async throws {
        _ = try await storeExpiredSession()
        let serverNow = fixture.clock.now.addingTimeInterval(3600)
        server.enqueue(.json(Self.refreshed("skewed"), headers: [("Date", ScriptedHTTPServer.httpDate(serverNow))]))
        let manager = manager()
        guard case .home = await manager.resume() else { Issue.record("expected home"); return }
        let vault = try await manager.vault
        guard case .session(_, _, let offset) = try await vault.snapshot() else { Issue.record("no session"); return }
        #expect(abs(offset - 3600) < 2)
    }

    @Test func pastTheAbsoluteLifetimeTokensAreClearedAndTheUserLogsIn() async throws {
        var policy = Self.noIdle
        policy.absoluteLifetime = 8 * 3600
        let vault = try fixture.open(policy: policy)
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        fixture.clock.advance(by: 8 * 3600)
        #expect(await manager(policy: policy).resume() == .login(reason: .absoluteLifetimePassed, showExpiredMessage: true))
        #expect(server.requestCount == 0, "never silently extended by a refresh")
        #expect(try await fixture.open(policy: policy).refreshToken() == nil)
    }

    @Test func neverSignedInIsAPlainLogin() async throws {
        #expect(await manager().resume() == .login(reason: .neverSignedIn, showExpiredMessage: false))
    }

    @Test func aLockedKeystoreIsUnavailableAndNothingIsWiped() async throws {
        let keys = try InMemoryKeyProvider()
        let vault = try Vault.open(at: fixture.path, keyProvider: keys, clock: fixture.clock.function)
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        keys.setState(.locked)
        let manager = ResumeManager(
            path: fixture.path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "k"),
            clock: fixture.clock.function)
        guard case .unavailable = await manager.resume() else { Issue.record("expected unavailable"); return }
        #expect(FileManager.default.fileExists(atPath: fixture.path))
        keys.setState(.available)
        guard case .home = await manager.resume() else { Issue.record("expected home once the keystore unlocks"); return }
    }

    @Test func aCorruptedVaultIsWipedWithATombstoneAndTheUserLogsIn() async throws {
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        // Damage a byte inside page 2 of the real file.
        let handle = try #require(FileHandle(forUpdatingAtPath: fixture.path))
        try handle.seek(toOffset: 4096 + 100)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 4096 + 100)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        let outcome = await manager().resume()
        guard case .login(.wipedAfterCorruption, false) = outcome else { Issue.record("expected wiped login, got \(outcome)"); return }
        #expect(Vault.tombstone(at: fixture.path) != nil)
        // The next launch reports why, then works normally.
        let fresh = try fixture.open()
        guard case .empty(.wipedAfterCorruption) = try await fresh.snapshot() else { Issue.record("tombstone reason lost"); return }
        try await fresh.store(Fixtures.goTrue())
        #expect(Vault.tombstone(at: fixture.path) == nil, "a new sign-in clears the tombstone")
    }

    @Test func aWrongKeyIsNeverWipedAutomatically() async throws {
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let other = TemporaryDirectory()
        let manager = ResumeManager(
            path: fixture.path, keyProvider: try KeyFileProvider.create(at: other.file("other.key")),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "k"), clock: fixture.clock.function)
        guard case .unavailable(_, let detail) = await manager.resume() else { Issue.record("expected unavailable"); return }
        #expect(detail.contains("wrongKey"))
        #expect(try await fixture.open().currentSession() != nil, "the right key still opens the untouched vault")
    }
}
