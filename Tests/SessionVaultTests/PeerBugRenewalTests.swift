import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// The renewal half of the peers' session-loss bugs that needs no second process: a foreground
/// auto-refresh through an outage, and telling "no credentials" apart from "cannot read them now"
/// and "cannot trust them" while renewals run concurrently.
@Suite("Peer bugs while renewing: auto-refresh after an outage, three distinct failures", .timeLimit(.minutes(2)))
struct PeerBugRenewalTests {
    let fixture = TestVault()
    let server: ScriptedHTTPServer

    init() throws { server = try ScriptedHTTPServer() }

    func manager(_ vault: TestVault, keys: any KeyProvider) -> ResumeManager {
        ResumeManager(
            path: vault.path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon", timeout: 5),
            policy: ResumeManagerTests.noIdle, clock: vault.clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
    }

    // supabase-swift #630: when one auto-refresh failed (airplane mode, a failed call), the SDK's
    // refresh loop stopped for good: it only scheduled the next refresh from a successful one.
    // Here the foreground loop meets a dropped connection, a 503 and a 500 in a row, keeps
    // retrying with its backoff, refreshes once the server is back, and schedules the next one.
    @Test func supabaseSwift630_foregroundAutoRefreshRecoversAfterAnOutage() async throws {
        let vault = try fixture.open(policy: ResumeManagerTests.noIdle)
        let stored = try await vault.store(Fixtures.goTrue())
        await vault.close()
        let clock = SteppedClock(fixture.clock)
        let manager = manager(fixture, keys: fixture.keys)
        await manager.startAutoRefresh(clock: clock)
        let due = try #require(await clock.waitForSleeper(), "asleep until the access token's turn")
        server.enqueue(.drop)
        server.enqueue(.json(status: 503, #"{"message":"upstream down"}"#))
        server.enqueue(.json(status: 500, #"{"message":"internal"}"#))
        server.enqueue(.json(PeerBugLaunchTests.rotated("after-the-outage")))
        clock.advance(to: due)
        var last = due
        for failure in 1...3 {
            #expect(await server.waitForRequests(failure), "attempt \(failure) reached the server")
            // The loop did not give up: it sleeps a backoff's length, not until the next expiry.
            let retry = try #require(await clock.waitForSleeper(after: last), "a retry is scheduled after failure \(failure)")
            #expect(retry < last.addingTimeInterval(60), "a backoff, not the next expiry")
            #expect(await manager.isAutoRefreshing)
            clock.advance(to: retry)
            last = retry
        }
        #expect(await server.waitForRequests(4))
        // Refreshed: the next refresh is scheduled for the new token, an hour on, and it happens.
        let next = try #require(await clock.waitForSleeper(after: last.addingTimeInterval(60)))
        #expect(next > last.addingTimeInterval(3000))
        server.enqueue(.json(PeerBugLaunchTests.rotated("next-cycle")))
        clock.advance(to: next)
        #expect(await server.waitForRequests(5), "the schedule lived on after the outage")
        _ = await clock.waitForSleeper(after: next)
        await manager.stopAutoRefresh()
        let check = try fixture.open(policy: ResumeManagerTests.noIdle)
        let current = try #require(try await check.currentSession())
        #expect(current.id == stored.id && current.tokenVersion == stored.tokenVersion + 2)
        await check.close()
        #expect(server.requestCount == 5)
    }

    // Auth0.swift #862: users got "No credentials were found in the store" at random while their
    // credentials were being renewed; apps cannot tell a real sign-out from a read that failed.
    // Three vaults — signed out, key store locked, file damaged — each hit by concurrent renewals:
    // each answers its own outcome, every time, and only the damaged one is wiped.
    @Test func auth0Swift862_missingLockedAndCorruptedAreThreeDistinctOutcomesUnderConcurrentRenewals() async throws {
        let signedOut = TestVault(), locked = TestVault(), damaged = TestVault()
        let lockedKeys = try InMemoryKeyProvider()
        for (vault, keys) in [(signedOut, signedOut.keys), (locked, lockedKeys), (damaged, damaged.keys)] as [(TestVault, any KeyProvider)] {
            let opened = try Vault.open(at: vault.path, keyProvider: keys, policy: ResumeManagerTests.noIdle, clock: vault.clock.function)
            try await opened.store(Fixtures.goTrue())
            if vault.path == signedOut.path { try await opened.signOut() }
            await opened.close()
            vault.clock.advance(by: 3600 + 60)  // every call is a renewal
        }
        lockedKeys.setState(.locked)
        let lockedBefore = locked.allFileBytes()
        // Damage: the database replaced by bytes of the same size (a torn restore, a bad sector).
        let size = try #require(FileManager.default.attributesOfItem(atPath: damaged.path)[.size] as? Int)
        try Data((0..<size).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: damaged.path))

        let managers: [(String, ResumeManager)] = [
            ("signedOut", manager(signedOut, keys: signedOut.keys)),
            ("locked", manager(locked, keys: lockedKeys)),
            ("damaged", manager(damaged, keys: damaged.keys))
        ]
        let outcomes = await withTaskGroup(of: (String, FreshTokenOutcome).self) { group in
            for round in 0..<300 {
                let (which, manager) = managers[round % 3]
                group.addTask { (which, await manager.freshAccessToken()) }
            }
            return await group.reduce(into: [(String, FreshTokenOutcome)]()) { $0.append($1) }
        }
        #expect(outcomes.count == 300)
        var damagedKinds: Set<String> = []
        for (which, outcome) in outcomes {
            switch (which, outcome) {
            case ("signedOut", .sessionEnded(.signedOut, _)): break
            case ("locked", .unavailable): break
            case ("damaged", .sessionEnded(.wipedAfterCorruption(let kind), _)): damagedKinds.insert(kind.rawValue)
            default: Issue.record("\(which) answered \(outcome)")
            }
        }
        #expect(damagedKinds.count == 1, "one damage, one classification: \(damagedKinds)")
        #expect(locked.allFileBytes() == lockedBefore, "a locked store is left exactly as it was")
        #expect(Vault.tombstone(at: locked.path) == nil && Vault.tombstone(at: signedOut.path) == nil)
        #expect(Vault.tombstone(at: damaged.path) != nil, "the damaged vault was recovered")
        #expect(server.requestCount == 0, "no outcome here needs the network")
    }
}
