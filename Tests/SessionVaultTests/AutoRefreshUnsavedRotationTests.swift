import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// A refresh whose rotation the disk cannot take keeps it in memory (`unsavedRotation`) and
/// answers `.home`; the vault still shows the due session. The auto-refresh loop took that
/// `.home` as done and went round at once: another failed write, another `.home`, as fast as the
/// loop could turn, with no sleep for as long as the disk stayed full. Reached here with a
/// server whose rotated access token is larger than the space held back for a rotation (a
/// token response has no size limit the library could know). Rule: the loop waits between
/// attempts to store a rotation kept in memory, as for any vault that cannot be written now.
@Suite("Auto-refresh while a rotation waits in memory for disk space", .serialized, .timeLimit(.minutes(3)))
struct AutoRefreshUnsavedRotationTests {
    @Test func theLoopSleepsBetweenAttemptsToStoreTheRotation() async throws {
        let disk = try await SmallFileSystem.mount(megabytes: 3)
        defer { Task { await disk.unmount() } }
        let big = String(repeating: "B", count: 240 * 1024)
        let rotated = String(decoding: Fixtures.goTrueJSON(access: big, refresh: "R-2", expiresAt: Fixtures.signInSeconds + 7200), as: UTF8.self)
        var reached: (manager: ResumeManager, server: ScriptedHTTPServer, clock: ManualClock, path: String, keys: KeyFileProvider)?
        // The free space at which the request goes out but its answer cannot be stored depends
        // on the engine's page use: found by a sweep, like the storage-full suite's.
        for free in stride(from: 96 * 1024, through: 640 * 1024, by: 32 * 1024) {
            let clock = ManualClock()
            let server = try ScriptedHTTPServer()
            server.defaultResponse = .json(rotated)
            let path = disk.path + "/vault-\(free).db", keys = KeyFileProvider(path: disk.path + "/vault-\(free).key")
            disk.freeAll()
            do {
                let vault = try Vault.open(at: path, keyProvider: keys, clock: clock.function)
                try await vault.store(Fixtures.goTrue())
                await vault.close()
            }
            clock.advance(by: 3600)
            var policy = ResumePolicy()
            policy.idleTimeout = nil
            let manager = ResumeManager(
                path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
                policy: policy, clock: clock.function)
            _ = try await manager.vault
            try disk.leave(free)
            _ = await manager.freshAccessToken()
            if server.requestCount == 1, await manager.unsavedRotation != nil {
                reached = (manager, server, clock, path, keys)
                break
            }
            if let open = try? await manager.vault { await open.close() }
        }
        let (manager, server, clock, path, keys) = try #require(reached, "no free-space level left a rotation in memory")
        // The loop on a clock the test steps: it must come to a sleep while the disk is full.
        let stepped = SteppedClock(clock)
        await manager.startAutoRefresh(clock: stepped)
        let deadline = try #require(await stepped.waitForSleeper(timeout: 30), "the loop never slept: it spins on the unsaved rotation")
        #expect(deadline == clock.now.addingTimeInterval(ResumeManager.unsavedRotationRetryInterval), "it waits the retry interval")
        #expect(server.requestCount == 1, "no refresh token is sent while the rotation waits")
        #expect(await manager.unsavedRotation != nil)
        // Space again: the loop's next turn stores the rotation, then sleeps until it is due.
        disk.freeAll()
        stepped.advance(to: deadline)
        _ = try #require(await stepped.waitForSleeper(after: deadline, timeout: 30), "the loop did not go on")
        #expect(await manager.unsavedRotation == nil, "the rotation was stored")
        await manager.stopAutoRefresh()
        #expect(server.requestCount == 1)
        let reopened = try Vault.open(at: path, keyProvider: keys, clock: clock.function, create: false)
        let refresh = try #require(try await reopened.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        #expect(refresh == "R-2")
        await reopened.close()
    }
}
