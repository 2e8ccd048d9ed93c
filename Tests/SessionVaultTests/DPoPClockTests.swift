import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport
import SessionVaultTesting

/// A DPoP proof's `iat` is the server's time as the device estimates it: the manager's
/// (injected) clock plus the offset the server's `Date` headers show. A device whose clock is off
/// by more than the server's window (serve.py: 300 s) still signs in and refreshes; the offset
/// is measured again when a proof is refused for it, and sent once more (never twice). And the
/// thumbprint the vault records is the one jwcrypto computes from the proofs' keys.
@Suite("DPoP: proofs dated by the server's clock; the recorded jkt is the server's", .serialized, .timeLimit(.minutes(3)))
struct DPoPClockTests {
    let fixture = TestVault()

    /// The device's clock: this machine's, moved by `skew` seconds. It runs (a frozen clock would
    /// drift from the server's by the test's own duration, which a busy machine stretches).
    final class DeviceClock: @unchecked Sendable {
        // Sendable: `lock` guards `skew`.
        private let lock = NSLock()
        private var skew: TimeInterval
        init(skew: TimeInterval = 0) { self.skew = skew }
        func advance(by seconds: TimeInterval) { lock.withLock { skew += seconds } }
        var function: @Sendable () -> Date { { Date().addingTimeInterval(self.lock.withLock { self.skew }) } }
    }

    func manager(_ server: DPoPTestServer, clock: DeviceClock) -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        return ResumeManager(
            path: fixture.path, keyProvider: fixture.keys,
            refresher: GoTrueRefresher(baseURL: server.authURL, apiKey: "anon", timeout: 10),
            policy: policy, clock: clock.function, dpop: DPoPConfiguration())
    }

    /// Whether a request's proof was dated within a minute of the server's clock.
    func datedByTheServer(_ seen: DPoPTestServer.Seen) -> Bool {
        guard let iat = seen.iat, let now = seen.serverTime else { return false }
        return abs(now - iat) <= 60
    }

    @Test(
        "a device two hours behind the server: the sign-in's first proof is refused, re-dated by the server's Date and accepted; refreshes then go through at once, also in another process"
    )
    func deviceBehindTheServer() async throws {
        try await DPoPTestServer.with(["--clock-offset", "7200"]) { server in
            let device = DeviceClock()
            let app = manager(server, clock: device)
            let session = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.tokenType == "DPoP")
            var requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 200], "one refusal for the iat, one retry: \(requests)")
            #expect(requests.last.map(datedByTheServer) == true)

            guard case .home(let refreshed) = await app.refreshNow() else { Issue.record("the refresh goes home"); return }
            #expect(refreshed.tokenVersion == 2)
            requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 200, 200], "the measured offset dates the next proof")
            #expect(requests.last.map(datedByTheServer) == true)

            // Another process (its own manager, nothing measured yet) dates its first proof by
            // the offset the vault recorded with the tokens.
            let extensionManager = manager(server, clock: device)
            guard case .home(let again) = await extensionManager.refreshNow() else { Issue.record("the other process refreshes"); return }
            #expect(again.tokenVersion == 3)
            requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 200, 200, 200], "\(requests)")
            #expect(requests.last.map(datedByTheServer) == true)
        }
    }

    @Test(
        "iat follows the manager's clock: the device's clock and the server's moved on together by ten minutes, the refresh's proof is dated ten minutes later, first time"
    )
    func iatFollowsTheInjectedClock() async throws {
        try await DPoPTestServer.with { server in
            // The device's clock three days behind this machine's.
            let device = DeviceClock(skew: -3 * 86_400)
            let app = manager(server, clock: device)
            _ = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(try await server.tokenRequests().map(\.status) == [400, 200])

            // Ten minutes pass for both (the server's clock moved by its harness, the device's by
            // the test): a proof dated by this machine's clock would be outside the window.
            try await server.setClock(offset: 600)
            device.advance(by: 600)
            guard case .home = await app.refreshNow() else { Issue.record("the refresh goes home"); return }
            let requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 200, 200], "\(requests)")
            #expect(requests.last.map(datedByTheServer) == true, "\(requests)")
        }
    }

    @Test("the server's clock jumps an hour after the offset was measured: one refused proof, one re-dated retry, never a third request")
    func serverClockMovedAfterTheMeasurement() async throws {
        try await DPoPTestServer.with { server in
            let device = DeviceClock()
            let app = manager(server, clock: device)
            _ = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(try await server.tokenRequests().map(\.status) == [200])
            try await server.setClock(offset: 3600)
            guard case .home(let refreshed) = await app.refreshNow() else { Issue.record("the refresh goes home"); return }
            #expect(refreshed.tokenVersion == 2)
            #expect(try await server.tokenRequests().map(\.status) == [200, 400, 200])
        }
    }

    @Test("a proof refused while the clocks agree is not sent again; refused after a re-dating, it is not sent a third time")
    func refusalsNotForTheClockAreNotRetried() async throws {
        try await DPoPTestServer.with(["--refuse-proofs"]) { server async throws in
            let app = manager(server, clock: DeviceClock())
            do {
                _ = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
                Issue.record("every proof is refused: no session")
            } catch {}
            #expect(try await server.tokenRequests().map(\.status) == [400], "the clocks agree: nothing to re-date")
        }
        try await DPoPTestServer.with(["--refuse-proofs", "--clock-offset", "7200"]) { server async throws in
            let app = manager(server, clock: DeviceClock())
            do {
                _ = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
                Issue.record("every proof is refused: no session")
            } catch {}
            #expect(try await server.tokenRequests().map(\.status) == [400, 400], "one re-dated retry, never a third request")
        }
    }

    @Test(
        "a resource refuses a proof dated by a clock that changed: takeDPoPChallenge with the answer's Date says retry once, and the re-dated proof is accepted; without a Date, no retry"
    )
    func resourceProofRefusedForItsDate() async throws {
        try await DPoPTestServer.with { server in
            let app = manager(server, clock: DeviceClock())
            _ = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let token, _) = await app.freshAccessToken() else { Issue.record("an access token"); return }
            // The server's clock jumps an hour (or the device's was corrected behind our back).
            try await server.setClock(offset: 3600)
            let stale = try #require(try await app.dpopProof(method: "GET", url: server.resourceURL, accessToken: token))
            let refused = try await server.getResourceRaw(accessToken: token, proof: stale)
            #expect(refused.status == 401 && refused.challenge == #"DPoP error="invalid_dpop_proof""#, "\(refused.status)")
            // Without the Date: the device's own clock is taken, which dated the proof: no retry.
            #expect(await !app.takeDPoPChallenge(status: 401, wwwAuthenticate: refused.challenge, dpopNonce: nil, for: server.resourceURL))
            #expect(await app.takeDPoPChallenge(status: 401, wwwAuthenticate: refused.challenge, dpopNonce: nil, date: refused.date, for: server.resourceURL))
            let redated = try #require(try await app.dpopProof(method: "GET", url: server.resourceURL, accessToken: token))
            #expect(try await server.getResource(accessToken: token, proof: redated).status == 200)
            // The token endpoint keeps its own clock (a resource is often another server, on
            // another clock): its next proof is dated as before, refused, and re-dated by the
            // token endpoint's own Date, in the one retry.
            guard case .home = await app.refreshNow() else { Issue.record("the refresh goes home"); return }
            #expect(try await server.tokenRequests().map(\.status) == [200, 400, 200])
        }
    }

    @Test("the jkt the vault records and inspect shows is the RFC 7638 thumbprint jwcrypto computes of every proof's key")
    func recordedThumbprintIsTheServers() async throws {
        try await DPoPTestServer.with { server in
            let app = manager(server, clock: DeviceClock())
            let session = try await app.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .home = await app.refreshNow() else { Issue.record("the refresh goes home"); return }
            let recorded = try #require(session.proofKeyThumbprint)
            let requests = try await server.tokenRequests()
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.jkt == recorded }, "ours \(recorded), jwcrypto's \(requests.map(\.jkt))")
            let inspection = try await app.vault.inspect()
            #expect(inspection.sessions.first?.session.proofKeyThumbprint == requests.first?.jkt)
        }
    }
}
