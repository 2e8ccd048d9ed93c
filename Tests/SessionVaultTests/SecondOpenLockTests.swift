import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Found by the session histories: POSIX record locks belong to a process, and closing *any*
/// descriptor of a file drops all of them. A second `Vault.open` of a vault this process already
/// has open read the database's first bytes through a descriptor of its own (the plain-SQLite
/// check) and closed it: the first connection silently lost SQLite's shared lock, so another
/// process closing its connection believed it was the last one, checkpointed and deleted the
/// write-ahead log under the first connection, whose next commit went to the deleted log. The next
/// launch found "a page lies beyond the end of the file" (truncated) and wiped a healthy vault and
/// its session.
@Suite("A second open in one process keeps the first connection's locks")
struct SecondOpenLockTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }

    @Test func aCommitAfterASecondOpenAndAnotherProcessesCloseSurvives() async throws {
        let first = try Vault.open(at: path, keyProvider: keys)
        _ = try await first.currentSession()
        // The same process opens the vault again (an extension's manager, an event feed).
        let second = try Vault.open(at: path, keyProvider: keys)
        _ = try await second.currentSession()
        // Another process opens the vault and closes it: it must not find itself the last one.
        let other = try TestHostProcess(["background-at", path, keyPath, "http://127.0.0.1:9/auth/v1", "\(Date().timeIntervalSince1970)"], scratch: directory)
        #expect(await other.finish(timeout: 60) == 0, "\(other.output)")
        #expect(other.lines.last == "ended neverSignedIn", "\(other.output)")
        let stored = try await first.store(Fixtures.goTrue(refresh: "after-second-open"))
        await first.close()
        let reopened = try Vault.open(at: path, keyProvider: keys, create: false)
        #expect(
            try await reopened.currentSession()?.refreshTokenFingerprint == stored.refreshTokenFingerprint,
            "the commit made after the second open was lost")
        await reopened.close()
        await second.close()
    }
}
