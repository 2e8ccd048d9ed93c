import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport
import SessionVaultTesting

/// The DPoP review's defects, each against Tests/Servers/dpop/serve.py: a proof key that does not
/// open is lost, not corruption; a manager without DPoP never spends a bound session's tokens as
/// bearer ones; a valid session whose key is gone hands out no token.
@Suite("DPoP review: key seals, managers without DPoP, valid sessions without their key", .serialized, .timeLimit(.minutes(3)))
struct DPoPReviewTests {
    let fixture = TestVault()
    /// The device's clock, at this machine's time: proofs are dated by it (corrected by the
    /// offset the server's `Date` headers show), and the server checks them against its own.
    let clock = ManualClock(Date())

    func manager(_ server: DPoPTestServer, dpop: DPoPConfiguration? = DPoPConfiguration()) -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        return ResumeManager(
            path: fixture.path, keyProvider: KeyFileProvider(path: fixture.path + ".key"),
            refresher: GoTrueRefresher(baseURL: server.authURL, apiKey: "anon", timeout: 10),
            policy: policy, clock: clock.function, dpop: dpop)
    }

    /// A raw SQLCipher connection with the vault's own key (what another library version, or a
    /// copy put together from two files, writes with).
    func rawConnection() throws -> Connection {
        let keyFile = KeyFileProvider(path: fixture.path + ".key")
        let keys = try VaultKeys(root: keyFile.rootKey(recorded: .stored, create: false).bytes)
        return try Connection.keyed(fixture.path, keys: keys)
    }

    @Test("migration 8 marks the vault readable by schema 8 and later: an older library sets it aside instead of writing it")
    func proofKeysRaiseTheFormatMarker() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try manager.vault).close()
            let raw = try rawConnection()
            defer { _ = raw.close() }
            #expect(try raw.scalarInt("SELECT readable_since FROM vault_format WHERE singleton = 1") == 8)
        }
    }

    @Test("a proof_key seal that does not open (an older library's rekey, garbage) is a lost key: proofKeyLost, no wipe, nothing sent")
    func unopenableProofKeyIsLostNotCorrupt() async throws {
        try await DPoPTestServer.with { server in
            let signedIn = manager(server)
            _ = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try signedIn.vault).close()
            do {
                let raw = try rawConnection()
                // Sealed under some other field key: what an older library's rekey leaves.
                let otherKeys = try VaultKeys(root: try SecretBytes.random(count: 32))
                let stored = try SecretBytes.random(count: 32)
                let sessionID = try #require(try raw.scalarText("SELECT id FROM sessions LIMIT 1"))
                try raw.run("UPDATE sessions SET proof_key = ?", [.blob(SessionRecord.sealProofKey(stored, sessionID: sessionID, keys: otherKeys))])
                #expect(raw.changes == 1)
                _ = raw.close()
            }
            let before = try await server.log().count
            let reopened = manager(server)
            #expect(await reopened.resume() == .login(reason: .proofKeyLost(subject: DPoPTestServer.subject), showExpiredMessage: true))
            #expect(Vault.tombstone(at: fixture.path) == nil, "not wiped")
            #expect(try await server.log().count == before, "nothing sent")
        }
    }

    @Test(
        "sign-out of a DPoP-bound session where no proof can be made (no DPoPConfiguration, or the key lost): signed out here, the bound tokens not sent as bearer ones, the server not told and said so"
    )
    func signOutWithoutAProofSendsNoBoundToken() async throws {
        try await DPoPTestServer.with { server in
            let signedIn = manager(server)
            _ = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try signedIn.vault).close()
            let before = try await server.log().count
            // Its access token dead by the device's clock too: no refresh without a proof either.
            clock.advance(by: 7200)
            try await server.setClock(offset: 7200)  // two hours later for the server too
            let plain = manager(server, dpop: nil)
            let result = try await plain.signOut()
            guard case .failed(let detail) = result.server else { Issue.record("the server was not told: \(result.server)"); return }
            #expect(detail.contains("DPoP-bound"), "\(detail)")
            #expect(try await plain.vault.currentSession() == nil, "signed out on the device")
            #expect(try await server.log().count == before, "no bearer logout, no refresh without a proof")
        }
    }

    @Test("a manager without a DPoPConfiguration on a DPoP-bound session: unavailable for tokens and refreshes, no proof, nothing sent")
    func managerWithoutDPoPNeverSendsABoundToken() async throws {
        try await DPoPTestServer.with { server in
            let signedIn = manager(server)
            let session = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.proofKeyThumbprint != nil)
            await (try signedIn.vault).close()
            let before = try await server.log().count

            let plain = manager(server, dpop: nil)
            let valid = await plain.freshAccessToken()
            guard case .unavailable(_, let detail) = valid else { Issue.record("no bound token handed out as bearer: \(valid)"); return }
            #expect(detail.contains("DPoP-bound") && detail.contains("DPoPConfiguration"), "\(detail)")
            let someToken = try Token("x")
            do throws(ProofKeyError) {
                let proof = try await plain.dpopProof(method: "GET", url: server.resourceURL, accessToken: someToken)
                Issue.record("a bound session without DPoP is not a bearer one: \(String(describing: proof))")
            } catch {
                guard case .unavailable = error else { Issue.record("\(error)"); return }
            }
            clock.advance(by: 7200)
            try await server.setClock(offset: 7200)  // two hours later for the server too
            let refreshed = await plain.refreshNow()
            guard case .unavailable = refreshed else { Issue.record("no refresh without a proof: \(refreshed)"); return }
            let background = await plain.backgroundAccessToken()
            guard case .unavailable = background else { Issue.record("\(background)"); return }
            #expect(try await server.log().count == before, "nothing sent")
            // The session is intact: the manager with DPoP goes on with it.
            await (try plain.vault).close()
            guard case .home(let home) = await manager(server).refreshNow() else { Issue.record("the DPoP manager refreshes"); return }
            #expect(home.tokenVersion == 2)
        }
    }

    @Test("a valid session whose proof key is gone hands out no token: sessionEnded(proofKeyLost), nothing sent")
    func validSessionWithoutItsKeyHandsOutNoToken() async throws {
        try await DPoPTestServer.with { server in
            let keys = TemporaryDirectory()
            let provider = HeldOutsideProofKeyProvider(directory: keys.path)
            let signedIn = manager(server, dpop: DPoPConfiguration(keyProvider: provider))
            _ = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try signedIn.vault).close()
            for name in try FileManager.default.contentsOfDirectory(atPath: keys.path) {
                try FileManager.default.removeItem(atPath: keys.path + "/" + name)
            }
            let before = try await server.log().count
            let background = manager(server, dpop: DPoPConfiguration(keyProvider: provider))
            let outcome = await background.backgroundAccessToken()
            guard case .sessionEnded(.proofKeyLost(let subject), _) = outcome else { Issue.record("no token without the key: \(outcome)"); return }
            #expect(subject == DPoPTestServer.subject)
            #expect(try await server.log().count == before)
        }
    }

    @Test("freshAccessToken on a valid session whose key is gone: sessionEnded(proofKeyLost)")
    func freshTokenWithoutItsKey() async throws {
        try await DPoPTestServer.with { server in
            let keys = TemporaryDirectory()
            let provider = HeldOutsideProofKeyProvider(directory: keys.path)
            let signedIn = manager(server, dpop: DPoPConfiguration(keyProvider: provider))
            _ = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            for name in try FileManager.default.contentsOfDirectory(atPath: keys.path) {
                try FileManager.default.removeItem(atPath: keys.path + "/" + name)
            }
            let outcome = await signedIn.freshAccessToken()
            guard case .sessionEnded(.proofKeyLost, _) = outcome else { Issue.record("no token without the key: \(outcome)"); return }
        }
    }

    @Test("the software provider: only bytes that are no P-256 key are lost; a valid scalar opens")
    func softwareProviderLosesOnlyUndecodableKeys() async throws {
        let provider = SoftwareProofKeyProvider()
        let made = try await provider.makeKey()
        let found = try await provider.key(fromStored: try made.storedForm())
        #expect(found.publicKeyXY == made.publicKeyXY)
        var zeros = [UInt8](repeating: 0, count: 32)
        let zeroScalar = try SecretBytes(consuming: &zeros)
        do throws(ProofKeyError) {
            _ = try await provider.key(fromStored: zeroScalar)
            Issue.record("the zero scalar is no P-256 key")
        } catch {
            guard case .lost = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("sign-out of a DPoP session ends it at the server: the logout carries DPoP <token> and a proof, a dead token is refreshed with the key first")
    func signOutEndsTheBoundSessionAtTheServer() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            let live = try await manager.signOut()
            #expect(live.server == .ended, "\(live.server)")
            var logouts = try await server.log().filter { $0.path == "/auth/v1/logout" }
            #expect(logouts.map(\.status) == [204] && logouts.allSatisfy(\.proof), "\(logouts)")

            // The access token dead by the device's clock: refreshed (with the key) for the logout.
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            clock.advance(by: 7200)
            try await server.setClock(offset: 7200)  // two hours later for the server too
            let dead = try await manager.signOut()
            #expect(dead.server == .ended, "\(dead.server)")
            let requests = try await server.log()
            logouts = requests.filter { $0.path == "/auth/v1/logout" }
            #expect(logouts.map(\.status) == [204, 204], "\(logouts)")
            let lastRefresh = try #require(requests.last { $0.grant == "refresh_token" })
            #expect(lastRefresh.status == 200 && lastRefresh.proof)
        }
    }

    @Test("verify() opens the proof_key seal: one that does not open is a finding of its session, recordAuthenticationFailed")
    func verifyOpensTheProofKeySeal() async throws {
        try await DPoPTestServer.with { server in
            let signedIn = manager(server)
            let session = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(try await signedIn.vault.verify().intact)
            await (try signedIn.vault).close()
            do {
                let raw = try rawConnection()
                try raw.run("UPDATE sessions SET proof_key = randomblob(80)")
                #expect(raw.changes == 1)
                _ = raw.close()
            }
            let vault = try Vault.open(at: fixture.path, keyProvider: KeyFileProvider(path: fixture.path + ".key"), clock: clock.function, create: false)
            let report = try await vault.verify()
            #expect(report.findings.map(\.kind) == [.recordAuthenticationFailed], "\(report.findings)")
            #expect(report.findings.first?.sessionID == session.id && report.findings.first?.detail.contains("proof_key") == true)
        }
    }

    @Test("htu is the absolute URL without query, fragment, userinfo and default port, scheme and host lowercased; a relative URL's proof is accepted")
    func htuIsTheAbsoluteTargetURI() async throws {
        let base = try #require(URL(string: "https://api.example.com/v1/"))
        #expect(DPoPProver.targetURI(try #require(URL(string: "items/7?full=1#top", relativeTo: base))) == "https://api.example.com/v1/items/7")
        #expect(DPoPProver.targetURI(try #require(URL(string: "HTTPS://user:secret@API.Example.COM:443/a?q=1"))) == "https://api.example.com/a")
        #expect(DPoPProver.targetURI(try #require(URL(string: "http://Example.com:80/x"))) == "http://example.com/x")
        #expect(DPoPProver.targetURI(try #require(URL(string: "http://example.com:8080/x"))) == "http://example.com:8080/x")
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            let relative = try #require(URL(string: "resource?page=2", relativeTo: server.baseURL))
            let proof = try #require(try await manager.dpopProof(method: "GET", url: relative, accessToken: accessToken))
            #expect(try await server.getResource(accessToken: accessToken, proof: proof).status == 200, "the server's htu check (jwcrypto-verified proof)")
        }
    }

    @Test("an accepted bearer downgrade on refresh clears the proof key: the session is a bearer one, its next refresh carries no proof")
    func acceptedDowngradeOnRefreshClearsTheKey() async throws {
        try await DPoPTestServer.with(["--downgrade-refresh"]) { server in
            let manager = manager(server, dpop: DPoPConfiguration(acceptsBearerDowngrade: true))
            let session = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.tokenType == "DPoP" && session.proofKeyThumbprint != nil)
            guard case .home(let downgraded) = await manager.refreshNow() else { Issue.record("the downgraded refresh is accepted"); return }
            #expect(downgraded.tokenType == "Bearer" && downgraded.proofKeyThumbprint == nil, "\(downgraded)")
            let key = try await manager.vault.currentProofKey()
            #expect(key?.thumbprint == nil && key?.stored == nil, "the key gone with the binding")
            guard case .home(let next) = await manager.refreshNow() else { Issue.record("the bearer session refreshes"); return }
            #expect(next.tokenVersion == 3)
            let last = try #require(try await server.tokenRequests().last)
            #expect(last.status == 200 && !last.proof, "a bearer session signs nothing")
        }
    }

    @Test("the nonce retry: only for a nonce that can be sent and differs from the one sent; use_dpop_nonce read from a DPoP challenge's error, not anywhere")
    func nonceRetryOnlyForANewUsableNonce() async throws {
        // The same nonce refused again: one retry for the first refusal (no nonce was sent), none
        // when the refused request carried that nonce already.
        try await DPoPTestServer.with(["--stuck-nonce"]) { (server) async throws in
            let manager = manager(server)
            for _ in 0..<2 {
                do throws(SignInError) {
                    _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
                    Issue.record("the server refuses every request")
                } catch {}
            }
            let requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 400, 400], "\(requests)")
            #expect(requests.map(\.nonce) == [nil, requests[1].nonce, requests[1].nonce] && requests[1].nonce != nil)
        }
        // A nonce that cannot go into a proof: no retry that would send the same proof again.
        try await DPoPTestServer.with(["--require-nonce", "--bad-nonce"]) { (server) async throws in
            let manager = manager(server)
            do throws(SignInError) {
                _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
                Issue.record("the nonce cannot be sent")
            } catch {}
            #expect(try await server.tokenRequests().count == 1)
        }
        // A resource's challenge: the DPoP scheme's error parameter, among other challenges.
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            let url = server.resourceURL
            #expect(
                await manager.takeDPoPChallenge(
                    status: 401, wwwAuthenticate: #"Bearer realm="api", DPoP algs="ES256", error="use_dpop_nonce""#, dpopNonce: "n-1", for: url))
            #expect(
                await !manager.takeDPoPChallenge(status: 401, wwwAuthenticate: #"DPoP error="use_dpop_nonce""#, dpopNonce: "n-1", for: url),
                "the nonce the proof carried already")
            #expect(await !manager.takeDPoPChallenge(status: 401, wwwAuthenticate: #"Bearer error="use_dpop_nonce""#, dpopNonce: "n-2", for: url))
            #expect(
                await !manager.takeDPoPChallenge(
                    status: 401, wwwAuthenticate: #"DPoP error="invalid_token", error_description="not use_dpop_nonce""#,
                    dpopNonce: "n-3", for: url))
            #expect(await !manager.takeDPoPChallenge(status: 401, wwwAuthenticate: #"DPoP error="use_dpop_nonce""#, dpopNonce: #"bad "nonce""#, for: url))
            #expect(await manager.takeDPoPChallenge(status: 401, wwwAuthenticate: #"dpop error=use_dpop_nonce"#, dpopNonce: "n-4", for: url))
        }
    }

    @Test("nonces are kept per server role: the token endpoint's does not go to the resource on the same origin, the resource's does not overwrite it")
    func noncesPerAuthorizationServerAndResource() async throws {
        try await DPoPTestServer.with(["--require-nonce", "--resource-nonce"]) { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            let first = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            let challenged = try await server.getResourceRaw(accessToken: accessToken, proof: first)
            #expect(
                await manager.takeDPoPChallenge(
                    status: challenged.status, wwwAuthenticate: challenged.challenge,
                    dpopNonce: challenged.nonce, for: server.resourceURL))
            let second = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            #expect(try await server.getResourceRaw(accessToken: accessToken, proof: second).status == 200)
            guard case .home = await manager.refreshNow() else { Issue.record("the refresh goes home"); return }
            let resource = try await server.log().filter { $0.path == "/resource" }
            #expect(resource.first?.nonce == nil, "the token endpoint's nonce is not the resource's")
            let tokens = try await server.tokenRequests()
            #expect(tokens.map(\.status) == [400, 200, 200], "the refresh carries the token endpoint's nonce, not the resource's: \(tokens)")
        }
    }
}
