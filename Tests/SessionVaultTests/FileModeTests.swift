import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Every file of a vault is 0600 whatever the umask: with umask 022 the database, -wal and -shm
/// were 0644. The vault is made and rotated by child processes that run under umask 022, and the
/// modes are read while one of them holds it open (so -wal and -shm exist).
@Suite("File modes: 0600 whatever the umask")
struct FileModeTests {
    @Test func everyFileOfAVaultIsPrivateUnderUmask022() async throws {
        let fixture = TestVault()
        let scratch = TemporaryDirectory("sessionvault-host")
        let store = try TestHostProcess(["store", fixture.path, fixture.keyPath, "r-1"], scratch: scratch, umask: "022")
        #expect(await store.finish(timeout: 60) == 0, "\(store.output)")
        let stop = scratch.file("stop")
        let watcher = try TestHostProcess(["watch", fixture.path, fixture.keyPath, stop], scratch: scratch, umask: "022")
        #expect(await watcher.waitFor("watching"))
        let rotate = try TestHostProcess(["rotate", fixture.path, fixture.keyPath, "r-2"], scratch: scratch, umask: "022")
        #expect(await rotate.finish(timeout: 60) == 0, "\(rotate.output)")

        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).sorted()
        for required in ["vault.db", "vault.db-wal", "vault.db-shm", "vault.db-header", "vault.key"] {
            #expect(names.contains(required), "\(required) missing from \(names)")
        }
        for name in names {
            var info = stat()
            #expect(lstat(fixture.directory.file(name), &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600, "\(name) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        #expect(await watcher.finish(timeout: 60) == 0, "\(watcher.output)")
    }
}
