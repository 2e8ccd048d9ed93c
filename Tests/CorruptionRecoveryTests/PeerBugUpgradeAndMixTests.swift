import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport
#if canImport(Glibc)
import Glibc
#endif

extension CorruptionRecovery {
    /// The peers' newer session-loss threads: an upgrade whose migration stopped, two stores at
    /// colliding names, and a session assembled from files of different write generations. Each on
    /// real files, with real child processes killed or starved of space.
    @Suite("Peer bugs: failed upgrades, colliding paths, mixed generations")
    struct PeerBugUpgradeAndMixTests {
        static let goldenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GoldenVaults/0.1.0/signed-in-biometric").path
        /// Nothing listens on port 9: the refresher is never needed on these paths.
        static let nowhere = URL(string: "http://127.0.0.1:9/auth/v1")!

        /// A copy of the 0.1.0 golden vault (signed in, user-123, biometric unlock on), in
        /// `directory` when given. 0.1.0 is at schema 5, one format behind; `twoFormatsOld` takes
        /// its format marker back out (migration 5 only adds that table and its row), which is
        /// the file a release before the marker wrote.
        static func golden(
            in directory: String? = nil, twoFormatsOld: Bool = false
        ) throws -> (directory: TemporaryDirectory, path: String, keys: KeyFileProvider) {
            let temporary = TemporaryDirectory()
            let target = directory ?? temporary.path
            for file in try FileManager.default.contentsOfDirectory(atPath: goldenRoot) {
                try FileManager.default.copyItem(atPath: "\(goldenRoot)/\(file)", toPath: target + "/" + file)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target + "/vault.key")
            let keys = KeyFileProvider(path: target + "/vault.key")
            if twoFormatsOld {
                let vaultKeys = try VaultKeys(root: keys.rootKey(recorded: .stored, create: false).bytes)
                let raw = try Connection.keyed(target + "/vault.db", keys: vaultKeys)
                try raw.execute("DROP TABLE vault_format; DELETE FROM schema_migrations WHERE version = 5;")
                _ = raw.close()
            }
            return (temporary, target + "/vault.db", keys)
        }

        /// Blocks of `directory`'s file system still free.
        static func freeBytes(_ directory: String) -> Int {
            var info = statvfs()
            guard statvfs(directory, &info) == 0 else { return 0 }
            return Int(info.f_bavail) * Int(info.f_frsize)
        }

        /// Fills `directory`'s file system until `leave` bytes are free (real writes: a sparse
        /// file takes no space on tmpfs).
        static func fill(_ directory: String, leaving leave: Int) throws -> String {
            let filler = directory + "/filler"
            _ = FileManager.default.createFile(atPath: filler, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
            defer { try? handle.close() }
            var remaining = freeBytes(directory) - leave
            let chunk = Data(count: 4096)
            while remaining >= chunk.count {
                try handle.write(contentsOf: chunk)
                remaining -= chunk.count
            }
            try handle.synchronize()
            return filler
        }

        /// The newest migration the file at `path` records (read-only, no migration run).
        static func schemaVersion(_ path: String, keys: KeyFileProvider) throws -> Int64? {
            let vaultKeys = try VaultKeys(root: keys.rootKey(recorded: .stored, create: false).bytes)
            let raw = try Connection.keyed(path, keys: vaultKeys, readOnly: true)
            defer { _ = raw.close() }
            return try raw.scalarInt("SELECT max(version) FROM schema_migrations")
        }

        /// The golden session, whole: the app's own open (create, as ResumeManager opens) finds
        /// user-123 with its refresh token and biometric unlock, the schema is current, the file
        /// verifies, and a second launch finds the same.
        static func expectGoldenSessionIntact(_ path: String, keys: KeyFileProvider, _ label: String) async throws {
            for launch in 1...2 {
                let vault = try Vault.open(at: path, keyProvider: keys)
                let session = try #require(try await vault.currentSession(), "\(label), launch \(launch): no session")
                #expect(session.identity.subject == "user-123" && session.biometricEnabled, "\(label), launch \(launch)")
                let refresh = try #require(try await vault.refreshToken())
                #expect(refresh.hasSameValue(as: try Token("v1.GOLDENREFRESHTOKEN-1")), "\(label), launch \(launch): another refresh token")
                #expect(try await vault.verify().intact, "\(label), launch \(launch)")
                await vault.close()
            }
            #expect(try schemaVersion(path, keys: keys) == Int64(Migrator().newestVersion), "\(label): not migrated to the current schema")
        }

        // flutter_secure_storage #1043, #1166 and #1225: an app upgrade whose stored-data
        // migration failed (or that skipped a version) hit `resetOnError` and deleted everything
        // stored. Here: a vault two formats old opened by this release on a disk that fills up
        // during the open (a small tmpfs, filled to a few pages: the shared-memory file takes
        // eight, the migrations' log frames the rest). Nothing is wiped, the answer is typed,
        // and once there is room the session opens whole.
        @Test func flutterSecureStorage1043_aMigrationStoppedByAFullDiskWipesNothing() async throws {
            let point = TemporaryDirectory("sessionvault-full")
            let mount = Process()
            mount.executableURL = URL(fileURLWithPath: "/bin/mount")
            mount.arguments = ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", point.path]
            try mount.run()
            mount.waitUntilExit()
            try #require(mount.terminationStatus == 0, "a small tmpfs cannot be mounted here (needs root)")
            defer {
                let umount = Process()
                umount.executableURL = URL(fileURLWithPath: "/bin/umount")
                umount.arguments = [point.path]
                try? umount.run()
                umount.waitUntilExit()
            }
            var answers: [String] = []
            var stoppedInMigration = 0
            for pages in [9, 10, 11, 12, 13, 14, 16, 20, 32] {
                let directory = point.file("v\(pages)")
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                let golden = try Self.golden(in: directory, twoFormatsOld: true)
                let keyBytes = FileManager.default.contents(atPath: golden.keys.path)
                let filler = try Self.fill(point.path, leaving: pages * 4096)
                var answer = "opened"
                do {
                    let vault = try Vault.open(at: golden.path, keyProvider: golden.keys)
                    await vault.close()
                } catch {
                    switch error {
                    case .storageFull: answer = "storageFull"
                    case .io(let io) where io.isOutOfSpace: answer = "storageFull"
                    default: answer = "\(error)"
                    }
                }
                answers.append("\(pages): \(answer)")
                #expect(answer == "opened" || answer == "storageFull", "\(pages) pages free: \(answer)")
                let schema = try Self.schemaVersion(golden.path, keys: golden.keys)
                if answer == "storageFull", let schema, schema < Int64(Migrator().newestVersion) { stoppedInMigration += 1 }
                #expect(
                    FileManager.default.fileExists(atPath: golden.path) && FileManager.default.fileExists(atPath: golden.path + "-header"),
                    "\(pages) pages free: vault files removed")
                #expect(FileManager.default.contents(atPath: golden.keys.path) == keyBytes, "\(pages) pages free: the key changed")
                #expect(Vault.tombstone(at: golden.path) == nil, "\(pages) pages free: wiped")
                // The cause goes: the session is there, whole, on this and the next launch.
                try FileManager.default.removeItem(atPath: filler)
                try await Self.expectGoldenSessionIntact(golden.path, keys: golden.keys, "\(pages) pages free")
                try FileManager.default.removeItem(atPath: directory)
            }
            #expect(stoppedInMigration > 0, "no fill stopped the upgrade part-way: \(answers)")
        }

        // A file-size limit met where the open grows the shared-memory file (SQLite gives
        // SQLITE_IOERR_SHMSIZE and no errno) was an engine error "code 4874" nobody could act on.
        @Test func aFullDiskMetByTheSharedMemoryFileIsStorageFull() async throws {
            let golden = try Self.golden(twoFormatsOld: true)
            let host = try CrashHost(["open-with-fsize-limit", golden.path, golden.keys.path, "4096"])
            let ending = try await host.ended()
            #expect(ending.lines.first == "open-failed storageFull 0", "\(ending.lines) \(ending.stderr)")
            try await Self.expectGoldenSessionIntact(golden.path, keys: golden.keys, "after the limit")
        }

        // The same with the upgrade killed inside each pending migration's transaction: a vault
        // two formats old, killed in the first and, on a fresh copy, in the second (the first
        // committed).
        @Test func flutterSecureStorage1166_anUpgradeKilledInsideEachMigrationWipesNothing() async throws {
            let probe = try Self.golden(twoFormatsOld: true)
            let before = try #require(try Self.schemaVersion(probe.path, keys: probe.keys))
            let pending = Migrator().newestVersion - Int(before)
            // Schema 4: the 0.1.0 file (schema 5) without its format marker, two formats before
            // the seal (6); every migration from 5 on is pending.
            #expect(before == 4, "the vault is not two formats old")
            for occurrence in 1...max(pending, 1) {
                let golden = try Self.golden(twoFormatsOld: true)
                let host = try CrashHost(["open-killed-at", golden.path, golden.keys.path, CrashPoint.migrationUncommitted.rawValue, String(occurrence)])
                let ready = try await host.line(startingWith: "ready")
                #expect(ready == "ready migration-uncommitted \(occurrence)", "the open did not stop in migration #\(occurrence)")
                host.kill()
                let ending = try await host.ended()
                #expect(ending.signal == SIGKILL, "\(ending.stderr)")
                // Migrations before the killed one committed; the killed one did not.
                #expect(
                    try Self.schemaVersion(golden.path, keys: golden.keys) == before + Int64(occurrence - 1),
                    "killed in migration #\(occurrence): the schema is not where the commits left it")
                // The app's launch: a typed path, the session, no wipe.
                let manager = ResumeManager(
                    path: golden.path, keyProvider: golden.keys, refresher: GoTrueRefresher(baseURL: Self.nowhere, apiKey: "anon"),
                    clock: { Date(timeIntervalSince1970: 1_800_000_060) })
                let outcome = await manager.resume()
                if case .login = outcome { Issue.record("killed in migration #\(occurrence): the launch gave up the session: \(outcome)") }
                #expect(Vault.tombstone(at: golden.path) == nil, "killed in migration #\(occurrence): wiped")
                try await Self.expectGoldenSessionIntact(golden.path, keys: golden.keys, "killed in migration #\(occurrence)")
            }
        }

        // flutter_secure_storage #1225: an app that skipped a release. A vault written before
        // the format marker (two formats behind the seal: migrations 5 and later pending) opens in one step
        // with its session, and so does the 0.1.0 file as released (one behind).
        @Test func flutterSecureStorage1225_aVaultTwoFormatsOldOpensWithItsSession() async throws {
            let old = try Self.golden(twoFormatsOld: true)
            #expect(try Self.schemaVersion(old.path, keys: old.keys) == 4)
            try await Self.expectGoldenSessionIntact(old.path, keys: old.keys, "two formats old")
            let released = try Self.golden()
            try await Self.expectGoldenSessionIntact(released.path, keys: released.keys, "0.1.0 as released")
        }

        // react-native-keychain #771: two libraries in one app used the same storage name and
        // each lost the other's items. Here: a second vault (another key) pointed at the first
        // one's path, a vault whose database path is the first one's header, and an app's own
        // files at the vault's and the key's paths. Each is refused; nothing is merged or wiped.
        @Test func reactNativeKeychain771_collidingPathsAreRefusedNeverMergedOrWiped() async throws {
            let fixture = try await DamageFixture.make()
            let digest = {
                fixture.directory.allFiles().filter { !$0.hasSuffix("-lock") && !$0.hasSuffix(".lock") }
                    .map { "\($0)=\(FileManager.default.contents(atPath: $0).map { SHA256Digest.hex([UInt8]($0)) } ?? "-")" }.sorted()
            }
            // Another library, its own key, the same vault path: its launch says "not now", not
            // "signed out", and wipes nothing.
            // (A library whose key was never made meets a key-missing vault, which is what a
            // vault restored without its key looks like too.)
            let otherKey = KeyFileProvider(path: fixture.directory.file("other.key"))
            _ = try otherKey.rootKey(recorded: nil, create: true)
            let before = digest()
            let other = ResumeManager(path: fixture.path, keyProvider: otherKey, refresher: GoTrueRefresher(baseURL: Self.nowhere, apiKey: "anon"))
            let outcome = await other.resume()
            guard case .unavailable = outcome else { Issue.record("another key at the same path: \(outcome)"); return }
            // A vault whose database name is this vault's header.
            do {
                _ = try Vault.open(at: fixture.files.header, keyProvider: otherKey)
                Issue.record("a vault opened on another vault's header")
            } catch {
                guard case .misconfigured = error else { Issue.record("a vault on another's header: \(error)"); return }
            }
            #expect(digest() == before, "the first vault's files changed")
            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            #expect(TokenValues.text(try await vault.refreshToken()) == fixture.expected?.refresh, "the first vault lost its session")
            await vault.close()

            // An app's own SQLite database at the vault's path, and an app's own file at the key's.
            let foreign = TemporaryDirectory()
            let appDatabase = foreign.file("vault.db")
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            shell.arguments = [appDatabase, "CREATE TABLE items(k TEXT, v TEXT); INSERT INTO items VALUES ('a', 'b');"]
            try shell.run()
            shell.waitUntilExit()
            #expect(shell.terminationStatus == 0, "sqlite3 did not make the app's database")
            let appDatabaseBytes = FileManager.default.contents(atPath: appDatabase)
            let appFile = foreign.file("settings.json")
            try Data(#"{"theme":"dark"}"#.utf8).write(to: URL(fileURLWithPath: appFile))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: appFile)
            for (database, key) in [(appDatabase, foreign.file("vault.key")), (foreign.file("second.db"), appFile)] {
                let manager = ResumeManager(
                    path: database, keyProvider: KeyFileProvider(path: key), refresher: GoTrueRefresher(baseURL: Self.nowhere, apiKey: "anon"))
                let answer = await manager.resume()
                guard case .unavailable = answer else { Issue.record("\(database) with key \(key): \(answer)"); continue }
            }
            #expect(FileManager.default.contents(atPath: appDatabase) == appDatabaseBytes, "the app's database changed")
            #expect(FileManager.default.contents(atPath: appFile) == Data(#"{"theme":"dark"}"#.utf8), "the app's file changed")
        }

        // supabase-js #2494: a stored session made of parts from different write generations
        // crashed recovery on every launch and was never cleaned up. Here: the header of one
        // copy with the database of another, both ways, and a log of one copy beside the
        // database of another. Each launch gives a typed answer; where the files cannot be
        // trusted the vault is recovered once; the second launch gives the same sane answer and
        // a sign-in works.
        @Test(arguments: ["older header", "older database", "older log"])
        func supabaseJS2494_filesFromDifferentGenerationsGetATypedAnswerAndNoCrashLoop(_ mix: String) async throws {
            let fixture = DamageFixture()
            let old = TemporaryDirectory()
            do {
                let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                try await vault.store(TokenValues.response(1))
                try await vault.rotate(TokenValues.response(2))
                // A copy as a running app holds it (the log holds the last commit): a backup,
                // a sync or a restore tool picks files up one by one.
                for file in [fixture.files.database, fixture.files.wal, fixture.files.header] where FileManager.default.fileExists(atPath: file) {
                    try FileManager.default.copyItem(atPath: file, toPath: old.file((file as NSString).lastPathComponent))
                }
                for sequence in 3...5 { try await vault.rotate(TokenValues.response(sequence)) }
                await vault.close()
            }
            let take: [String]
            switch mix {
            case "older header": take = ["vault.db-header"]
            case "older database": take = ["vault.db"]
            default: take = ["vault.db-wal"]
            }
            for name in take {
                try? FileManager.default.removeItem(atPath: fixture.directory.file(name))
                if FileManager.default.fileExists(atPath: old.file(name)) {
                    try FileManager.default.copyItem(atPath: old.file(name), toPath: fixture.directory.file(name))
                }
            }
            let clock: @Sendable () -> Date = { Date() }
            var answers: [String] = []
            for _ in 1...2 {
                let manager = ResumeManager(
                    path: fixture.path, keyProvider: fixture.keys,
                    refresher: GoTrueRefresher(baseURL: Self.nowhere, apiKey: "anon"), clock: clock)
                let outcome = await manager.resume()
                switch outcome {
                case .home(let session):
                    answers.append("home v\(session.tokenVersion)")
                case .login(let reason, _):
                    answers.append("login \(reason.code)")
                default:
                    answers.append("\(outcome)")
                }
            }
            switch mix {
            case "older header":
                // The header only lags the database, as after a crash between commit and header
                // write: the newest session, both launches.
                #expect(answers.allSatisfy { $0.hasPrefix("home") }, "\(mix): \(answers)")
                let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                #expect(TokenValues.text(try await vault.refreshToken()) == TokenValues.refresh(5), "\(mix): not the newest session")
                await vault.close()
            default:
                // An older database (or log) under a newer header is a rollback: never used
                // (its refresh token was spent). Recovered once, then the same answer.
                #expect(
                    answers.count == 2 && answers[0].hasPrefix("login wipedAfterCorruption") && answers[1] == answers[0],
                    "\(mix): \(answers)")
            }
            // And the user can sign in: the vault works.
            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            try await vault.store(TokenValues.response(10))
            #expect(TokenValues.text(try await vault.refreshToken()) == TokenValues.refresh(10))
            await vault.close()
        }
    }
}
