import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// A refresh whose result cannot be stored is never sent: on a real, nearly full file system, for
/// every amount of free space from none to well past what a rotation needs, either the refresh
/// token never left (nothing spent) or its rotated tokens were kept: stored, or held in memory and
/// stored as soon as there is space. The server never sees the spent token again.
@Suite("Storage full around a refresh", .serialized, .timeLimit(.minutes(3)))
struct StorageFullRefreshTests {
    @Test func aRefreshIsSentOnlyWhenItsRotationCanBeKept() async throws {
        let disk = try await SmallFileSystem.mount(megabytes: 3)
        defer { Task { await disk.unmount() } }
        var sentAndStored = 0, notSent = 0, keptInMemory = 0
        for free in stride(from: 0, through: 448 * 1024, by: 16 * 1024) {
            let clock = ManualClock()
            let server = try RotatingTokenServer(expiresIn: 3600, clock: clock)
            let path = disk.path + "/vault-\(free).db", keys = KeyFileProvider(path: disk.path + "/vault-\(free).key")
            disk.freeAll()
            do {
                let vault = try Vault.open(at: path, keyProvider: keys, clock: clock.function)
                try await vault.store(try TokenResponse(json: Data(server.signInJSON().utf8)))
                await vault.close()
            }
            clock.advance(by: 3600)
            var policy = ResumePolicy()
            policy.idleTimeout = nil
            let manager = ResumeManager(
                path: path, keyProvider: keys,
                refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
                policy: policy, clock: clock.function, backoff: RetryBackoff(base: 0.01, cap: 0.1))
            _ = try await manager.vault
            try disk.leave(free)
            let outcome = await manager.freshAccessToken()
            if server.refreshCount == 0 {
                notSent += 1
                guard case .unavailable(_, let detail) = outcome else { Issue.record("\(free) B free: nothing sent, yet \(outcome)"); continue }
                #expect(detail.contains("storage"), "\(free) B free: \(detail)")
            } else {
                // Sent: the rotated access token is what the app gets, from the vault or memory.
                guard case .token(let token, _) = outcome else { Issue.record("\(free) B free: sent, then \(outcome)"); continue }
                #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "A-1", "\(free) B free")
                sentAndStored += 1
                if await manager.unsavedRotation != nil { keptInMemory += 1 }
            }
            // Space again: the next call stores what memory held; a fresh process reads it.
            disk.freeAll()
            _ = await manager.freshAccessToken()
            let reopened = try Vault.open(at: path, keyProvider: keys, clock: clock.function, create: false)
            let refresh = try #require(try await reopened.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            #expect(refresh == (server.refreshCount == 0 ? "R-0" : "R-1"), "\(free) B free: \(refresh) after \(server.refreshCount) refreshes")
            await reopened.close()
            // And the next refresh uses the newest token: never a reuse.
            clock.advance(by: 3600)
            guard case .token = await manager.freshAccessToken() else { Issue.record("\(free) B free: no refresh with space"); continue }
            #expect(server.reuseCount == 0, "\(free) B free: a spent refresh token was sent again")
            if let open = try? await manager.vault { await open.close() }
            for suffix in ["", "-wal", "-shm", "-journal", ".header", ".refresh-lock", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            for file in (try? FileManager.default.contentsOfDirectory(atPath: disk.path)) ?? [] where file.hasPrefix("vault-\(free).") {
                try? FileManager.default.removeItem(atPath: disk.path + "/" + file)
            }
        }
        print(
            "storage full around a refresh: \(notSent) free-space levels refused before sending, \(sentAndStored) sent and kept"
                + " (\(keptInMemory) of them in memory until the disk had room)")
        #expect(notSent > 0 && sentAndStored > 0, "the sweep must cross the boundary")
    }
}
