import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport
import SessionVaultTesting

/// A proof key kept outside the vault, as a Secure Enclave key is: the vault stores only a handle
/// (16 random bytes), the scalar lives in `directory`. A vault copied without that directory (a
/// restore onto another device) has a handle that leads nowhere.
struct HeldOutsideProofKeyProvider: ProofKeyProvider {
    let directory: String

    struct Key: ProofSigningKey {
        let handle: [UInt8]
        let key: SoftwareProofKey
        var publicKeyXY: [UInt8] { key.publicKeyXY }
        func storedForm() throws(ProofKeyError) -> SecretBytes {
            var bytes = handle
            do { return try SecretBytes(consuming: &bytes) } catch { throw .failed("\(error)") }
        }
        func signature(for message: [UInt8]) throws(ProofKeyError) -> [UInt8] { try key.signature(for: message) }
    }

    func file(_ handle: [UInt8]) -> String { directory + "/" + Hex.encode(handle) }

    func makeKey() async throws(ProofKeyError) -> any ProofSigningKey {
        let made = try await SoftwareProofKeyProvider().makeKey()
        let handle = Sodium.randomBytes(16)
        let scalar = try made.storedForm()
        scalar.withUnsafeBytes { _ = FileManager.default.createFile(atPath: file(handle), contents: Data($0)) }
        return try await key(fromStored: try Key(handle: handle, key: made as! SoftwareProofKey).storedForm())
    }

    func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey {
        let handle = stored.withUnsafeBytes { Array($0) }
        guard let data = FileManager.default.contents(atPath: file(handle)) else { throw .lost("no key for this handle on this device") }
        var bytes = Array(data)
        let scalar: SecretBytes
        do { scalar = try SecretBytes(consuming: &bytes) } catch { throw .failed("\(error)") }
        guard let key = try await SoftwareProofKeyProvider().key(fromStored: scalar) as? SoftwareProofKey else { throw .failed("not a software key") }
        return Key(handle: handle, key: key)
    }
}

/// Hands back some other key than the one stored: what a provider mixing up its keys (or a
/// key swapped under the session) looks like.
struct SwappingProofKeyProvider: ProofKeyProvider {
    func makeKey() async throws(ProofKeyError) -> any ProofSigningKey { try await SoftwareProofKeyProvider().makeKey() }
    func key(fromStored stored: SecretBytes) async throws(ProofKeyError) -> any ProofSigningKey { try await SoftwareProofKeyProvider().makeKey() }
}

/// Sender-constrained (DPoP) sessions against Tests/Servers/dpop/serve.py, whose proof checks are
/// jwcrypto's (ES256 signature, RFC 7638 thumbprint), not ours.
@Suite("DPoP: proof keys, proofs on every token request, binding, key loss, two processes", .serialized, .timeLimit(.minutes(3)))
struct DPoPTests {
    let fixture = TestVault()
    /// The device's clock, at this machine's time: proofs are dated by it (corrected by the
    /// offset the server's `Date` headers show), and the server checks them against its own.
    let clock = ManualClock(Date())

    func manager(_ server: DPoPTestServer, dpop: DPoPConfiguration? = DPoPConfiguration(), path: String? = nil) -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = nil
        return ResumeManager(
            path: path ?? fixture.path, keyProvider: KeyFileProvider(path: (path ?? fixture.path) + ".key"),
            refresher: GoTrueRefresher(baseURL: server.authURL, apiKey: "anon", timeout: 10),
            policy: policy, clock: clock.function, dpop: dpop)
    }

    func text(_ token: Token?) -> String? { token?.withRevealedBytes { String(decoding: $0, as: UTF8.self) } }

    @Test("sign-in and refresh carry proofs and come back bound; the refresh token alone, or with another key, is refused; inspect shows the jkt")
    func boundSessionRefusesTheTokenWithoutItsKey() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            let session = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.tokenType == "DPoP")
            let jkt = try #require(session.proofKeyThumbprint)
            #expect(jkt.count == 43, "base64url of a SHA-256")

            // The refresh token copied off the device: useless without the key.
            let stolen = try #require(text(try await manager.vault.refreshToken()))
            let bare = try await server.refreshDirectly(stolen, proof: nil)
            #expect(bare.status == 400 && bare.body["error"] as? String == "invalid_dpop_proof")
            let otherKey = try #require(DPoPProver(key: try await SoftwareProofKeyProvider().makeKey(), nonces: DPoPNonceStore()))
            #expect(otherKey.thumbprint != jkt)
            let withOtherKey = try await server.refreshDirectly(stolen, proof: try otherKey.proof(method: "POST", url: server.tokenEndpoint))
            #expect(withOtherKey.status == 400 && withOtherKey.body["error"] as? String == "invalid_grant")

            // The device itself still refreshes: the same key, recorded thumbprint unchanged.
            guard case .home(let refreshed) = await manager.refreshNow() else { Issue.record("the bound refresh goes home"); return }
            #expect(refreshed.tokenVersion == 2 && refreshed.tokenType == "DPoP" && refreshed.proofKeyThumbprint == jkt)

            let requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [200, 400, 400, 200])
            #expect(requests.map(\.grant) == ["password", "refresh_token", "refresh_token", "refresh_token"])
            let ours = [requests[0], requests[3]]
            #expect(ours.allSatisfy { $0.proof })
            #expect(Set(ours.compactMap(\.jti)).count == 2, "a fresh jti per proof")

            // inspect: the thumbprint, never the key.
            let inspection = try await manager.vault.inspect()
            #expect(inspection.sessions.first?.session.proofKeyThumbprint == jkt)
        }
    }

    @Test("a resource proof carries ath and is accepted once; the same proof (same jti) again is refused")
    func replayedProofIsRefused() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            let proof = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            #expect(try await server.getResource(accessToken: accessToken, proof: proof).status == 200)
            let replay = try await server.getResourceRaw(accessToken: accessToken, proof: proof)
            #expect(replay.status == 401 && replay.challenge == #"DPoP error="invalid_dpop_proof""#)
            let fresh = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            #expect(try await server.getResource(accessToken: accessToken, proof: fresh).status == 200)
        }
    }

    @Test("a resource's 401 with a DPoP invalid_token challenge refreshes once, as a Bearer one does")
    func dpopInvalidTokenChallengeRefreshes() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            // A proof by another key: the server's answer is RFC 9449 §7.1's challenge.
            let otherKey = try #require(DPoPProver(key: try await SoftwareProofKeyProvider().makeKey(), nonces: DPoPNonceStore()))
            let refused = try await server.getResourceRaw(
                accessToken: accessToken,
                proof: try otherKey.proof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            #expect(refused.status == 401 && refused.challenge == #"DPoP error="invalid_token""#)
            let outcome = await manager.handleAPIFailure(
                status: refused.status, body: refused.body, wwwAuthenticate: refused.challenge,
                sentToken: accessToken)
            guard case .home(let refreshed)? = outcome else { Issue.record("a DPoP invalid_token refreshes: \(String(describing: outcome))"); return }
            #expect(refreshed.tokenVersion == 2)
        }
    }

    @Test("use_dpop_nonce: one retry with the server's nonce, and the nonce is remembered for the refresh")
    func nonceRoundTrip() async throws {
        try await DPoPTestServer.with(["--require-nonce"]) { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            var requests = try await server.tokenRequests()
            #expect(requests.map(\.status) == [400, 200], "one refusal, one retry")
            #expect(requests[0].nonce == nil && requests[1].nonce != nil)
            guard case .home = await manager.refreshNow() else { Issue.record("the refresh goes home"); return }
            requests = try await server.tokenRequests()
            #expect(requests.count == 3, "the remembered nonce: no second refusal")
            #expect(requests.last?.status == 200 && requests.last?.nonce == requests[1].nonce)
            // The resource on the same server: the app's proof carries the remembered nonce.
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            let proof = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            #expect(try await server.getResource(accessToken: accessToken, proof: proof).status == 200)
        }
    }

    @Test("the code exchange (PKCE) carries a proof, retried once for the nonce; an RFC 6749 refresh stays bound")
    func codeExchangeAndOAuth2Refresh() async throws {
        try await DPoPTestServer.with(["--require-nonce"]) { server in
            let redirectURI = try #require(URL(string: "http://127.0.0.1/callback"))
            var policy = ResumePolicy()
            policy.idleTimeout = nil
            let manager = ResumeManager(
                path: fixture.path, keyProvider: KeyFileProvider(path: fixture.path + ".key"),
                refresher: OAuth2Refresher(tokenEndpoint: server.oauthTokenEndpoint, clientID: "app", timeout: 10),
                policy: policy, clock: clock.function, dpop: DPoPConfiguration())
            let flow = AuthorizationCodeFlow(
                authorizationEndpoint: server.authorizationEndpoint, tokenEndpoint: server.oauthTokenEndpoint,
                clientID: "app", redirectURI: redirectURI, timeout: 10)
            let request = try flow.authorizationRequest()
            let redirect = try await server.consent(request.url)
            let session = try await manager.signIn(completing: request, redirect: redirect)
            #expect(session.tokenType == "DPoP" && session.proofKeyThumbprint != nil)
            guard case .home(let refreshed) = await manager.refreshNow() else { Issue.record("the RFC 6749 refresh goes home"); return }
            #expect(refreshed.tokenVersion == 2 && refreshed.proofKeyThumbprint == session.proofKeyThumbprint)
            let requests = try await server.tokenRequests()
            #expect(requests.map(\.grant) == ["authorization_code", "authorization_code", "refresh_token"])
            #expect(requests.map(\.status) == [400, 200, 200], "one nonce refusal, its retry, the refresh with the remembered nonce")
            #expect(requests.allSatisfy { $0.proof })
        }
    }

    @Test("a resource's use_dpop_nonce challenge: the nonce taken, one retry with a new proof goes through")
    func resourceNonceRoundTrip() async throws {
        try await DPoPTestServer.with(["--resource-nonce"]) { server in
            let manager = manager(server)
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            let first = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            let challenged = try await server.getResourceRaw(accessToken: accessToken, proof: first)
            #expect(challenged.status == 401 && challenged.challenge == #"DPoP error="use_dpop_nonce""#)
            #expect(
                await manager.takeDPoPChallenge(
                    status: challenged.status, wwwAuthenticate: challenged.challenge,
                    dpopNonce: challenged.nonce, for: server.resourceURL))
            let second = try #require(try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken))
            let retried = try await server.getResourceRaw(accessToken: accessToken, proof: second)
            #expect(retried.status == 200)
            // An answer that is no nonce challenge is not a reason to retry.
            #expect(await !manager.takeDPoPChallenge(status: 200, wwwAuthenticate: nil, dpopNonce: retried.nonce, for: server.resourceURL))
            let log = try await server.log().filter { $0.path == "/resource" }
            #expect(log.map(\.status) == [401, 200] && log[0].nonce == nil && log[1].nonce == challenged.nonce)
        }
    }

    @Test("a server that answers a proof with bearer tokens: refused by default, accepted (without a key) when the policy says so")
    func bearerDowngrade() async throws {
        try await DPoPTestServer.with(["--downgrade"]) { server in
            let refusing = manager(server)
            do throws(SignInError) {
                _ = try await refusing.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
                Issue.record("a downgraded sign-in is refused")
            } catch {
                guard case .invalidResponse(let detail) = error else { Issue.record("\(error)"); return }
                #expect(detail.contains("downgrade"))
            }
            #expect(try await refusing.vault.currentSession() == nil, "nothing stored")
            await (try refusing.vault).close()
            let accepting = manager(server, dpop: DPoPConfiguration(acceptsBearerDowngrade: true))
            let session = try await accepting.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.tokenType == "Bearer" && session.proofKeyThumbprint == nil)
        }
    }

    @Test("a vault copied without its key answers missing(.proofKeyLost) with the subject, and sends nothing")
    func stolenCopyWithoutTheKey() async throws {
        try await DPoPTestServer.with { server in
            let keysHere = TemporaryDirectory(), keysElsewhere = TemporaryDirectory()
            let original = manager(server, dpop: DPoPConfiguration(keyProvider: HeldOutsideProofKeyProvider(directory: keysHere.path)))
            let session = try await original.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(session.proofKeyThumbprint != nil)
            await (try original.vault).close()

            // Every file of the vault and its root key, copied: the proof key stays behind.
            let copy = TemporaryDirectory()
            let copyPath = copy.file("vault.db")
            let from = VaultFiles(database: fixture.path), to = VaultFiles(database: copyPath)
            for (source, target) in zip(
                [from.database, from.wal, from.sharedMemory, from.journal, from.header],
                [to.database, to.wal, to.sharedMemory, to.journal, to.header]) where FileManager.default.fileExists(atPath: source)
            {
                try FileManager.default.copyItem(atPath: source, toPath: target)
            }
            try FileManager.default.copyItem(atPath: fixture.path + ".key", toPath: copyPath + ".key")
            clock.advance(by: 7200)  // the access token is dead: a refresh would be sent
            try await server.setClock(offset: 7200)  // two hours later for the server too
            let before = try await server.log().count

            let restored = manager(server, dpop: DPoPConfiguration(keyProvider: HeldOutsideProofKeyProvider(directory: keysElsewhere.path)), path: copyPath)
            let outcome = await restored.resume()
            #expect(outcome == .login(reason: .proofKeyLost(subject: DPoPTestServer.subject), showExpiredMessage: true))
            #expect(try await server.log().count == before, "nothing sent with the orphaned tokens")
            #expect(try await restored.vault.currentSession() == nil)
            // Said again on the next launch, from the vault.
            #expect(await restored.resume() == .login(reason: .proofKeyLost(subject: DPoPTestServer.subject), showExpiredMessage: true))

            // The device that has the key goes on.
            let device = manager(server, dpop: DPoPConfiguration(keyProvider: HeldOutsideProofKeyProvider(directory: keysHere.path)))
            guard case .home(let home) = await device.resume() else { Issue.record("the device with the key refreshes"); return }
            #expect(home.tokenVersion == 2)
        }
    }

    @Test("the default software key gone from the row (its thumbprint kept): proofKeyLost with the subject, nothing sent")
    func softwareKeyGoneFromTheRow() async throws {
        try await DPoPTestServer.with { server in
            let signedIn = manager(server)
            _ = try await signedIn.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try signedIn.vault).close()
            // The sealed key's column emptied behind the library's back, through SQLCipher with
            // the vault's own key (what a copy put together from two files could hold).
            let keyFile = KeyFileProvider(path: fixture.path + ".key")
            let keys = try VaultKeys(root: keyFile.rootKey(recorded: .stored, create: false).bytes)
            do {
                let raw = try Connection.keyed(fixture.path, keys: keys)
                try raw.execute("UPDATE sessions SET proof_key = NULL")
                #expect(raw.changes == 1)
                _ = raw.close()
            }
            let before = try await server.log().count
            let reopened = manager(server)
            #expect(await reopened.resume() == .login(reason: .proofKeyLost(subject: DPoPTestServer.subject), showExpiredMessage: true))
            #expect(try await server.log().count == before)
        }
    }

    @Test("a key whose thumbprint is not the recorded jkt is corruption: recovered, the tombstone says why, nothing sent")
    func keyNotMatchingTheThumbprint() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server, dpop: DPoPConfiguration(keyProvider: SwappingProofKeyProvider()))
            _ = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            clock.advance(by: 7200)
            try await server.setClock(offset: 7200)  // two hours later for the server too
            let before = try await server.log().count
            #expect(await manager.resume() == .login(reason: .wipedAfterCorruption(.invariantViolation), showExpiredMessage: false))
            let tombstone = try #require(Vault.tombstone(at: fixture.path))
            #expect(tombstone.reason == .invariantViolation && tombstone.detail.contains("jkt"), "\(tombstone.detail)")
            #expect(try await server.log().count == before)
        }
    }

    @Test("sign-out ends the key with the session: nothing is left to sign with, the next sign-in makes a new key")
    func signOutEndsTheKey() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            let first = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            guard case .token(let accessToken, _) = await manager.freshAccessToken() else { Issue.record("an access token"); return }
            _ = try await manager.signOut()
            #expect(try await manager.vault.currentProofKey() == nil)
            // No session is no bearer session: no proof, and no nil that would mean "send Bearer".
            await #expect(throws: ProofKeyError.unavailable("no session is signed in")) {
                try await manager.dpopProof(method: "GET", url: server.resourceURL, accessToken: accessToken)
            }
            let second = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            #expect(second.proofKeyThumbprint != nil && second.proofKeyThumbprint != first.proofKeyThumbprint)
        }
    }

    @Test("rekey keeps the proof key: the session refreshes with it afterwards")
    func rekeyKeepsTheKey() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            let session = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            try await manager.vault.rekey(to: KeyFileProvider(path: fixture.directory.file("new.key")))
            guard case .home(let refreshed) = await manager.refreshNow() else { Issue.record("refresh after rekey"); return }
            #expect(refreshed.proofKeyThumbprint == session.proofKeyThumbprint && refreshed.tokenVersion == 2)
        }
    }

    @Test("two processes: the key shared through the vault, one refresh request, each proof its own jti")
    func twoProcessesOneRequest() async throws {
        try await DPoPTestServer.with { server in
            let manager = manager(server)
            let session = try await manager.signIn(email: DPoPTestServer.email, password: DPoPTestServer.password)
            await (try manager.vault).close()
            // Two hours later for the device and the server alike.
            try await server.setClock(offset: 7200)
            let at = String(Int(clock.now.timeIntervalSince1970) + 7200)
            let arguments = ["dpop-resume-at", fixture.path, fixture.path + ".key", server.authURL.absoluteString, at]
            let first = try TestHostProcess(arguments, scratch: fixture.directory)
            let second = try TestHostProcess(arguments, scratch: fixture.directory)
            #expect(await first.finish() == 0, "\(first.output)")
            #expect(await second.finish() == 0, "\(second.output)")
            let outcomes = first.lines + second.lines
            #expect(outcomes.count == 2 && Set(outcomes).count == 1, "\(outcomes)")
            #expect(outcomes.allSatisfy { $0.hasPrefix("home ") && $0.hasSuffix(" v2 jkt \(session.proofKeyThumbprint ?? "?")") }, "\(outcomes)")
            let requests = try await server.tokenRequests()
            #expect(requests.filter { $0.grant == "refresh_token" }.count == 1, "one refresh reached the server")
            #expect(Set(requests.compactMap(\.jti)).count == requests.count)
        }
    }
}
