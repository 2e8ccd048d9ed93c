import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// No token outlives its session in the files: after a sign-out, and after a store that replaces a
/// session, no earlier token can be recovered from any file of the vault with its key, not from the
/// database's pages nor from older frames of the write-ahead log.
@Suite("Sign-out and replacement leave no earlier token in the vault's files")
struct SignOutResidueTests {
    let directory = TemporaryDirectory()
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }

    static func tokens(_ label: String) -> (refresh: String, access: String) {
        let unique = UUID().uuidString
        return ("residue-\(label)-refresh-\(unique)", "residue-\(label)-access-\(unique)")
    }

    @Test("replaced and signed-out tokens: none opens from a copy of the database and its log taken while the vault is open")
    func noEarlierTokenSurvivesInTheLog() async throws {
        let first = Self.tokens("first")
        let second = Self.tokens("second")
        let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        try await vault.store(Fixtures.goTrue(refresh: first.refresh, access: first.access))

        // The search works: the stored session's tokens are found in a copy.
        let stored = try VaultResidue.copyAside(vault.files)
        #expect(try VaultResidue.recoverable([first.refresh, first.access], copy: stored, keyFile: keyPath) == 2)

        try await vault.store(Fixtures.goTrue(refresh: second.refresh, access: second.access))
        let replaced = try VaultResidue.copyAside(vault.files)
        #expect(
            try VaultResidue.recoverable([first.refresh, first.access], copy: replaced, keyFile: keyPath) == 0,
            "a replaced session's token opens from the copy")
        #expect(try VaultResidue.recoverable([second.refresh, second.access], copy: replaced, keyFile: keyPath) == 2)
        #expect(VaultResidue.frameCount(replaced) == 0)

        try await vault.signOut()
        let signedOut = try VaultResidue.copyAside(vault.files)
        #expect(
            try VaultResidue.recoverable([first.refresh, first.access, second.refresh, second.access], copy: signedOut, keyFile: keyPath) == 0,
            "a signed-out token opens from the copy")
        #expect(VaultResidue.frameCount(signedOut) == 0)
        await vault.close()
    }

    @Test("a process killed (SIGKILL) right after sign-out leaves no signed-out token, before and after the kill")
    func aProcessKilledAfterSignOutLeavesNoToken() async throws {
        let signedIn = Self.tokens("killed")
        let stop = directory.file("stop")
        let host = try TestHostProcess(["store-signout-hold", path, keyPath, signedIn.refresh, stop], scratch: directory)
        #expect(await host.waitFor("signedOut"))
        let whileRunning = try VaultResidue.copyAside(VaultFiles(database: path))
        host.sigkill()
        _ = await host.finish()
        let afterKill = try VaultResidue.copyAside(VaultFiles(database: path))
        for copy in [whileRunning, afterKill] {
            #expect(
                try VaultResidue.recoverable([signedIn.refresh, "access-\(signedIn.refresh)"], copy: copy, keyFile: keyPath) == 0,
                "a signed-out token opens from a copy of the files")
        }
        #expect(!host.output.contains(signedIn.refresh), "the host never prints a token")
    }
}
