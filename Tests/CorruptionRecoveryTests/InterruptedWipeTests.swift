import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

extension CorruptionRecovery {
    /// The states a crash can leave inside a wipe, planted byte for byte as the key file's
    /// shredding leaves them, and reached by killing a real process between the wipe's steps:
    /// each opens as missing or corrupted-then-recovered, and the next sign-in works.
    @Suite("Interrupted wipe: never a brick, the first reason kept")
    struct InterruptedWipeTests {
        /// Nothing listens there: no test here may reach the network.
        static let unreachable = URL(string: "http://127.0.0.1:9/auth/v1")!

        /// What a wipe killed after the key file was overwritten with zeros and synced, but before
        /// it was unlinked, leaves: the key path holds 56 zero bytes (mode 0600), the database
        /// and header are intact. With `tombstone`, the wipe was a recovery that had written it.
        static func shreddedButNotUnlinked(tombstone: CorruptionKind?) async throws -> DamageFixture {
            let fixture = try await DamageFixture.make()
            if let tombstone {
                try Tombstone(reason: tombstone, detail: "planted: the first wipe's reason", wipedAt: Date(timeIntervalSince1970: 1_800_000_000))
                    .write(to: fixture.files.tombstone)
            }
            try plantZeroKey(at: fixture.keyPath)
            return fixture
        }

        static func plantZeroKey(at path: String) throws {
            let zeros = Data(repeating: 0, count: KeyFileProvider.fileSize)
            try zeros.write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
        }

        /// The app's launch on the remains: a login screen (never "unavailable"), then a sign-in
        /// that works and is found again by the next launch.
        static func expectAppRecovers(
            _ fixture: DamageFixture, reason expected: CorruptionKind,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let manager = ResumeManager(
                path: fixture.path, keyProvider: fixture.keys,
                refresher: GoTrueRefresher(baseURL: unreachable, apiKey: "anon"))
            let outcome = await manager.resume()
            #expect(
                outcome == .login(reason: .wipedAfterCorruption(expected), showExpiredMessage: false),
                "launch on an interrupted wipe: \(outcome)", sourceLocation: sourceLocation)
            #expect(
                Vault.tombstone(at: fixture.path)?.reason == expected, "the tombstone keeps the first wipe's reason",
                sourceLocation: sourceLocation)
            let vault = try await manager.vault
            let stored = try await vault.store(TokenValues.response(9))
            await vault.close()
            let next = ResumeManager(
                path: fixture.path, keyProvider: fixture.keys,
                refresher: GoTrueRefresher(baseURL: unreachable, apiKey: "anon"))
            guard case .home(let session) = await next.resume() else {
                Issue.record("the sign-in after recovery is not found by the next launch", sourceLocation: sourceLocation)
                return
            }
            #expect(session.refreshTokenFingerprint == stored.refreshTokenFingerprint, sourceLocation: sourceLocation)
        }

        @Test("a recovery killed after the key was zeroed: the app recovers, the tombstone keeps notADatabase")
        func zeroedKeyAfterARecoveryTombstone() async throws {
            let fixture = try await Self.shreddedButNotUnlinked(tombstone: .notADatabase)
            try await Self.expectAppRecovers(fixture, reason: .notADatabase)
            #expect(
                !FileManager.default.fileExists(atPath: KeyFileProvider.damagedName(for: fixture.keyPath)),
                "the zeroed key is our own: deleted, not kept aside")
        }

        @Test("an explicit wipe killed after the key was zeroed: the app recovers (its record of the wipe under way says so)")
        func zeroedKeyWithoutATombstone() async throws {
            let fixture = try await DamageFixture.make()
            // What a wipe the app asked for leaves while it runs: its record, before the key.
            try Tombstone(reason: .keyMissing, detail: VaultWiper.requestedWipeDetail, wipedAt: Date(timeIntervalSince1970: 1_800_000_000))
                .write(to: fixture.files.tombstone)
            try Self.plantZeroKey(at: fixture.keyPath)
            try await Self.expectAppRecovers(fixture, reason: .keyMissing)
        }

        @Test("zeros at the named key with no record of a wipe under way: not proven this vault's key, nothing wiped")
        func zeroedKeyWithNoRecordIsNotProof() async throws {
            let fixture = try await Self.shreddedButNotUnlinked(tombstone: nil)
            let before = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).sorted()
            let manager = ResumeManager(
                path: fixture.path, keyProvider: fixture.keys,
                refresher: GoTrueRefresher(baseURL: URL(fileURLWithPath: "/"), apiKey: "anon"))
            guard case .unavailable = await manager.resume() else { Issue.record("zeros alone were taken as proof"); return }
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).sorted() == before)
        }

        @Test("a second wipe after one killed once the key was gone keeps the first reason")
        func secondWipeKeepsTheFirstReason() async throws {
            let fixture = try await DamageFixture.make()
            try Tombstone(reason: .notADatabase, detail: "planted: the first wipe's reason", wipedAt: Date(timeIntervalSince1970: 1_800_000_000))
                .write(to: fixture.files.tombstone)
            try FileIO.removeIfPresent(fixture.keyPath)
            // The explicit form an app or the CLI uses: open, then recover with what the open said.
            var found: CorruptionReason?
            do { _ = try Vault.open(at: fixture.path, keyProvider: fixture.keys, create: false) } catch {
                if case .corrupted(let reason) = error { found = reason }
            }
            let reason = try #require(found)
            #expect(reason.kind == .keyMissing)
            try Vault.recover(at: fixture.path, keyProvider: fixture.keys, reason: reason)
            #expect(Vault.tombstone(at: fixture.path)?.reason == .notADatabase, "the second wipe overwrote the first reason")
            #expect(Vault.tombstone(at: fixture.path)?.wipedAt == Date(timeIntervalSince1970: 1_800_000_000))
        }

        @Test("a zero file of the key's length that is not beside a vault of ours is never taken for a shredded key")
        func aZeroFileAloneIsNotOurs() async throws {
            let directory = TemporaryDirectory()
            let keyPath = directory.file("vault.key")
            try Self.plantZeroKey(at: keyPath)
            // No header, no tombstone: nothing proves the file is ours. Creating a vault must not
            // replace it, and a wipe must not delete it.
            do {
                _ = try Vault.open(at: directory.file("vault.db"), keyProvider: KeyFileProvider(path: keyPath))
                Issue.record("a vault was created over a zero file that nothing proves ours")
            } catch {
                guard case .keyProvider(.misconfigured) = error else {
                    Issue.record("expected a misconfigured key provider, got \(error)")
                    return
                }
            }
            try? Vault.recover(at: directory.file("vault.db"), keyProvider: KeyFileProvider(path: keyPath), reason: nil)
            #expect(FileManager.default.contents(atPath: keyPath) == Data(repeating: 0, count: KeyFileProvider.fileSize))
        }

        @Test("a recovery killed after each of its steps, inside the key's destruction too: the app recovers every time")
        func killedAfterEachStep() async throws {
            var sawZeroedKey = false
            for step in 1...40 {
                let fixture = try await Scenarios.randomBytesOfTheRightSize()
                let host = try CrashHost(["recover-killed", fixture.path, fixture.keyPath, "\(step)"])
                let ending = try await host.ended()
                if let finished = ending.lines.first(where: { $0.hasPrefix("finished ") }) {
                    #expect(finished == "finished \(step - 1)", "\(ending.lines)")
                    #expect(step > 10, "the wipe has more steps than \(step - 1): \(ending.lines)")
                    break
                }
                #expect(ending.signal == SIGKILL, "step \(step): the host ended on its own (\(ending.status ?? -1)): \(ending.stderr)")
                let killed = ending.lines.first { $0.hasPrefix("killing after ") } ?? "?"
                if killed == "killing after key zeroed" {
                    // The state that bricked the vault: zeros at the key path, database and header intact.
                    sawZeroedKey = true
                    #expect(FileManager.default.contents(atPath: fixture.keyPath) == Data(repeating: 0, count: KeyFileProvider.fileSize))
                    #expect(FileManager.default.fileExists(atPath: fixture.path))
                }
                try await Self.expectAppRecovers(fixture, reason: .notADatabase)
            }
            #expect(sawZeroedKey, "no kill landed between the key's overwrite and its unlink")
        }
    }
}
