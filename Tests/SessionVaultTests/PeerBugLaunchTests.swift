import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The launch half of the peers' session-loss bugs: each test is one thread that users of another
/// session library filed, replayed as they reported it, on a real vault file and a real HTTP server
/// on 127.0.0.1, asserting what the user wanted to happen.
@Suite("Peer bugs at launch: locked keystores, early reads, ghost sessions, offline, lost keys", .timeLimit(.minutes(2)))
struct PeerBugLaunchTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    static func rotated(_ refresh: String, expiresIn: Int = 3600) -> String {
        #"{"access_token":"access-\#(refresh)","token_type":"bearer","expires_in":\#(expiresIn),"refresh_token":"\#(refresh)","user":{"id":"user-123"}}"#
    }

    func manager(keys: any KeyProvider, policy: ResumePolicy = ResumePolicy(), waitLimit: TimeInterval = 10) -> ResumeManager {
        ResumeManager(
            path: fixture.path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            policy: policy, clock: fixture.clock.function, refreshWaitLimit: waitLimit, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    /// Signs in once with `keys` and closes the vault, as the previous run of the app did.
    func signIn(keys: any KeyProvider, policy: ResumePolicy = ResumePolicy()) async throws -> Session {
        let vault = try Vault.open(at: fixture.path, keyProvider: keys, policy: policy, clock: fixture.clock.function)
        let session = try await vault.store(Fixtures.goTrue())
        await vault.close()
        return session
    }

    /// The vault's files that hold data (the lock files are empty by design and left out).
    func dataFiles() -> [String: Data] { fixture.allFileBytes() }

    /// The corruption kind opening `vault` reports, if it reports one.
    static func openError(_ vault: TestVault) async -> CorruptionKind? {
        let opened: Vault
        do {
            opened = try Vault.open(at: vault.path, keyProvider: vault.keys, create: false)
        } catch {
            if case .corrupted(let reason) = error { return reason.kind }
            return nil
        }
        await opened.close()
        return nil
    }

    // firebase-ios-sdk #8695: iOS 15 prewarmed apps before the first unlock; the keychain read
    // failed and Firebase Auth treated the missing user as signed out (and deleted the item), so
    // users were "signed out after 30 minutes". A locked key store must read as "not now".
    @Test func firebaseIOS8695_coldLaunchWithTheKeystoreLockedIsUnavailableNotMissing() async throws {
        let keys = try InMemoryKeyProvider()
        let stored = try await signIn(keys: keys)
        let before = dataFiles()
        keys.setState(.locked)
        let manager = manager(keys: keys)
        guard case .unavailable(let retryAfter, _) = await manager.resume() else {
            Issue.record("a locked key store must be unavailable, never a login"); return
        }
        #expect(retryAfter > 0, "the app is told when to try again")
        guard case .unavailable = await manager.freshAccessToken() else { Issue.record("API calls wait too"); return }
        #expect(dataFiles() == before, "nothing was written, let alone wiped")
        #expect(Vault.tombstone(at: fixture.path) == nil)
        keys.setState(.available)
        guard case .home(let session) = await manager.resume() else { Issue.record("unlocked: straight home"); return }
        #expect(session.id == stored.id && session.tokenVersion == stored.tokenVersion)
        #expect(server.requestCount == 0, "a still-valid session needs no network")
    }

    // firebase-ios-sdk #9869: the fix for #8695 waited for the "protected data did become
    // available" notification, which sometimes never came (or came before the keychain could be
    // read), and users were logged out again. Here the signal comes, the store is still locked:
    // the next resume simply tries again, and goes home once the key can be read.
    @Test func firebaseIOS9869_aSignalThatCameTooEarlyIsRetriedByTheNextResume() async throws {
        let keys = try InMemoryKeyProvider()
        let stored = try await signIn(keys: keys)
        keys.setState(.locked)
        let manager = manager(keys: keys)
        guard case .unavailable = await manager.resume() else { Issue.record("locked at launch: unavailable"); return }
        // "Protected data available" arrives; the app resumes, but the key store still says no.
        for _ in 0..<3 {
            guard case .unavailable = await manager.resume() else { Issue.record("still locked: unavailable again, no latch"); return }
        }
        keys.setState(.available)
        guard case .home(let session) = await manager.resume() else { Issue.record("the first resume after it opens goes home"); return }
        #expect(session.id == stored.id)
        guard case .token = await manager.freshAccessToken() else { Issue.record("and API calls get their token"); return }
        #expect(Vault.tombstone(at: fixture.path) == nil)
    }

    // firebase-ios-sdk #13231: `Auth.auth().currentUser` was nil at startup on some devices: the
    // keychain read raced the app's first look, and apps routed users to sign-in. However many
    // callers ask while the vault is still being opened, a stored session is never "missing".
    @Test func firebaseIOS13231_concurrentResumesWhileTheVaultOpensNeverAnswerMissing() async throws {
        let stored = try await signIn(keys: fixture.keys)
        let manager = manager(keys: fixture.keys)
        // Nothing opened yet: the first of these calls opens the vault, the others arrive meanwhile.
        let answers = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        guard case .home(let session) = await manager.resume() else { return false }
                        return session.id == stored.id
                    }
                    guard case .token(_, let session) = await manager.freshAccessToken() else { return false }
                    return session.id == stored.id
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0 }, "\(answers.filter { !$0 }.count) callers did not see the stored session")
        #expect(server.requestCount == 0)
    }

    // supabase-swift #753: at launch `currentSession` showed the cached session, then the SDK wiped
    // it and the first auth event said `initialSession` with no session ("ghost session"). What
    // `currentSession()` says at launch and what follows must agree, and an outage wipes nothing.
    @Test func supabaseSwift753_theSessionAtLaunchAndTheFirstEventAgreeAndAnOutageWipesNothing() async throws {
        let keys = fixture.keys
        _ = try await signIn(keys: keys, policy: ResumeManagerTests.noIdle)
        fixture.clock.advance(by: 3600 + 60)  // relaunched after the access token expired
        let vault = try Vault.open(at: fixture.path, keyProvider: keys, policy: ResumeManagerTests.noIdle, clock: fixture.clock.function)
        let atLaunch = try #require(try await vault.currentSession(), "the app lets the user in on this")
        var events = await vault.events().makeAsyncIterator()
        let manager = ResumeManager(
            vault: vault, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            backoff: RetryBackoff(base: 0.01, cap: 0.1))
        server.enqueue(.json(status: 503, #"{"message":"upstream down"}"#))
        guard case .offline(let offlineSession, _) = await manager.resume() else { Issue.record("an outage is offline"); return }
        #expect(offlineSession.id == atLaunch.id)
        let afterOutage = try #require(try await vault.currentSession(), "the outage wiped nothing")
        #expect(afterOutage.id == atLaunch.id && afterOutage.refreshTokenFingerprint == atLaunch.refreshTokenFingerprint)
        server.enqueue(.json(Self.rotated("after-outage")))
        guard case .home(let session) = await manager.resume() else { Issue.record("back online: home"); return }
        #expect(session.id == atLaunch.id && session.tokenVersion == atLaunch.tokenVersion + 1)
        // The first event the app hears is the refresh of the very session it showed, not a
        // sign-out and not an empty session.
        let first = await events.next()
        #expect(first == .tokenUpdated(session.refreshTokenFingerprint))
        #expect(server.requestCount == 2)
        await vault.close()
    }

    // supabase-flutter #716: an app resumed without network after its access token expired; the
    // refresh failed and the SDK removed the stored session, so the next launch showed login.
    // Offline with an expired access token is `offline` with the tokens kept; online later, home.
    @Test func supabaseFlutter716_resumedOfflineWithAnExpiredAccessTokenKeepsTheSession() async throws {
        let keys = fixture.keys
        let stored = try await signIn(keys: keys, policy: ResumeManagerTests.noIdle)
        fixture.clock.advance(by: 3600 + 60)
        // Airplane mode: the connection is dropped without an answer, every time.
        server.enqueue(.drop)
        server.enqueue(.drop)
        let offline = manager(keys: keys, policy: ResumeManagerTests.noIdle)
        guard case .offline(let session, let retryAfter) = await offline.resume() else { Issue.record("no network is offline"); return }
        #expect(session.id == stored.id && retryAfter > 0)
        guard case .offline = await offline.freshAccessToken() else { Issue.record("API calls are offline too"); return }
        // The app is killed and launched again, now online.
        try await offline.vault.close()
        let check = try Vault.open(at: fixture.path, keyProvider: keys, create: false)
        #expect(try await check.currentSession()?.refreshTokenFingerprint == stored.refreshTokenFingerprint, "tokens kept")
        await check.close()
        server.enqueue(.json(Self.rotated("back-online")))
        guard case .home(let home) = await manager(keys: keys, policy: ResumeManagerTests.noIdle).resume() else {
            Issue.record("online again: home"); return
        }
        #expect(home.id == stored.id && home.tokenVersion == stored.tokenVersion + 1)
        #expect(server.requestCount == 3)
    }

    // tink-java #23: apps crashed at startup (AEADBadTagException) after Android restored a backup
    // that brought the encrypted data but not the Keystore key that could open it. A vault restored
    // without its key is `corrupted(keyMissing)`: recovered, no crash, and the user can sign in.
    @Test func tinkJava23_aVaultRestoredWithoutItsKeyIsRecoveredAndTheUserSignsIn() async throws {
        _ = try await signIn(keys: fixture.keys)
        // The restore: the vault's files land on a new device; the key stayed in the old one's
        // key store.
        let restored = TestVault()
        for file in [fixture.files.database, fixture.files.header] {
            try FileManager.default.copyItem(atPath: file, toPath: restored.directory.file((file as NSString).lastPathComponent))
        }
        #expect(!FileManager.default.fileExists(atPath: restored.keyPath))
        #expect(await Self.openError(restored) == .keyMissing, "classified, not a crash and not a silent empty vault")
        let manager = ResumeManager(
            path: restored.path, keyProvider: restored.keys,
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5), clock: restored.clock.function)
        #expect(await manager.resume() == .login(reason: .wipedAfterCorruption(.keyMissing), showExpiredMessage: false))
        #expect(Vault.tombstone(at: restored.path)?.reason == .keyMissing)
        // Sign-in on the new device stores and reads back.
        let vault = try restored.open()
        let session = try await vault.store(Fixtures.goTrue(refresh: "signed-in-again"))
        let readsBack = try await vault.refreshToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) == "signed-in-again" } == true
        #expect(readsBack, "the new refresh token reads back")
        await vault.close()
        guard case .home(let home) = await manager.resume() else { Issue.record("after sign-in: home"); return }
        #expect(home.id == session.id)
        #expect(server.requestCount == 0)
    }
}
