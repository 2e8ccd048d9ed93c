import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Two processes on one vault file: an app and its extension, or a native side and a JS side.
@Suite("Two processes: sync events, cross-process single-flight refresh, device restart")
struct MultiProcessTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }

    func storeSession(expiresIn: Int = 3600) async throws -> Session {
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let session = try await vault.store(Fixtures.goTrue(expiresIn: expiresIn))
        await vault.close()
        return session
    }

    @Test func anotherProcessSeesTokenBiometricAndSignOutChanges() async throws {
        _ = try await storeSession()
        let stopFile = directory.file("stop-watching")
        let watcher = try TestHostProcess(["watch", path, keyPath, stopFile], scratch: directory)
        #expect(await watcher.waitFor("watching"))
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let rotated = try await vault.rotate(Fixtures.goTrue(refresh: "from-process-a", access: "access-a"))
        let fingerprint = try #require(rotated.refreshTokenFingerprint?.hex)
        #expect(await watcher.waitFor("tokenUpdated \(fingerprint)"))
        try await vault.setBiometricUnlock(true)
        #expect(await watcher.waitFor("biometricChanged true"))
        try await vault.signOut()
        #expect(await watcher.waitFor("signedOut"))
        _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
        #expect(await watcher.finish() == 0, "\(watcher.output)")
        #expect(!watcher.output.contains("from-process-a"), "the other process never prints a token")
    }

    @Test func thisProcessSeesAnotherProcessesRotation() async throws {
        _ = try await storeSession()
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let events = await vault.events()
        let writer = try TestHostProcess(["rotate", path, keyPath, "from-process-b"], scratch: directory)
        #expect(await writer.finish() == 0, "\(writer.output)")
        let printed = try #require(writer.lines.first { $0.hasPrefix("rotated ") }?.dropFirst("rotated ".count))
        var seen: VaultEvent?
        for await event in events {
            seen = event
            break
        }
        #expect(seen == .tokenUpdated(Fingerprint(hex: String(printed))))
        let token = try #require(try await vault.refreshToken())
        #expect(token.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "from-process-b")
    }

    @Test func twoProcessesRefreshingAtOnceSpendTheRefreshTokenOnce() async throws {
        let server = try ScriptedHTTPServer()
        // Already expired when stored: both processes decide `expired` on launch.
        _ = try await storeSession(expiresIn: 0)
        server.enqueue(
            .json(
                #"{"access_token":"new-access","token_type":"bearer","expires_in":3600,"refresh_token":"rotated-across-processes","user":{"id":"user-123"}}"#,
                delay: 0.8))
        server.defaultResponse = .json(status: 400, #"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#)
        let first = try TestHostProcess(["resume", path, keyPath, server.baseURL.absoluteString], scratch: directory)
        let second = try TestHostProcess(["resume", path, keyPath, server.baseURL.absoluteString], scratch: directory)
        #expect(await first.finish() == 0, "\(first.output)")
        #expect(await second.finish() == 0, "\(second.output)")
        #expect(server.requestCount == 1, "exactly one network call across both processes")
        let outcomes = first.lines + second.lines
        #expect(outcomes.count == 2)
        #expect(outcomes.allSatisfy { $0.hasPrefix("home ") && $0.hasSuffix(" v2") }, "\(outcomes)")
        #expect(Set(outcomes).count == 1, "both processes ended on the same rotated session")
    }

    @Test func aNewProcessAfterARestartGoesHomeWithoutTheNetwork() async throws {
        let server = try ScriptedHTTPServer()
        let stored = try await storeSession()
        let restarted = try TestHostProcess(["resume", path, keyPath, server.baseURL.absoluteString], scratch: directory)
        #expect(await restarted.finish() == 0, "\(restarted.output)")
        #expect(restarted.lines == ["home \(stored.refreshTokenFingerprint?.hex ?? "") v1"])
        #expect(server.requestCount == 0)
    }
}

/// Busy is waited out inside the library: processes opening, writing and reading one vault at
/// once never see it.
@Suite("Several processes at once: busy never reaches a caller")
struct ContentionTests {
    @Test func fourProcessesStoringRotatingReadingAndSigningOutNeverFail() async throws {
        let directory = TemporaryDirectory()
        let path = directory.file("vault.db"), keyPath = directory.file("vault.key")
        // Made first, so the processes contend on use, not on creation (the creation race has a
        // test of its own).
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        await vault.close()
        // 4 × 40 opens: without the busy wait before the first read about one run in four failed.
        let rounds = 40
        let workers = try (1...4).map { try TestHostProcess(["churn", path, keyPath, "\(rounds)", "p\($0)"], scratch: directory) }
        for worker in workers {
            #expect(await worker.finish() == 0, "\(worker.output)")
            #expect(worker.lines.last == "done")
            #expect(!worker.output.contains("busy"), "\(worker.output)")
        }
        let report = try Vault.verify(at: path, keyProvider: KeyFileProvider(path: keyPath))
        #expect(report.intact, "\(report.findings)")
        // Every rotation a process was told about was committed at version 2 of its own sign-in.
        let rotations = workers.flatMap { $0.lines.filter { $0.hasPrefix("rotated ") } }
        #expect(rotations.allSatisfy { $0.hasSuffix(" v2") })
        #expect(!rotations.isEmpty)
    }
}
