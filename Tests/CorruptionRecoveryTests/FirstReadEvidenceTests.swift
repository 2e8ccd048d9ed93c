import Foundation
import Testing
@testable import SessionVault

/// A vault whose first read fails must be left as it was found: found by the vault-open fuzz
/// target (Fuzz/). The connection that failed the first read of page 1 was closed normally, and
/// the last connection to close checkpoints: the write-ahead log of a damaged vault was folded
/// into its main file and deleted, so the evidence the next open and the CLI need was gone, and
/// a damaged page 1 could even be papered over by the log's copy.
@Suite("A connection that fails its first read closes without checkpointing")
struct FirstReadEvidenceTests {
    /// A vault whose latest commit lives only in the write-ahead log, as a device image of a
    /// running app holds it: stored and closed (the main file holds pair 1), reopened and
    /// rotated to pair 2, then its files are copied while it is still open.
    static func hotCopy() async throws -> DamageFixture {
        let live = DamageFixture()
        let first = try Vault.open(at: live.path, keyProvider: live.keys)
        try await first.store(TokenValues.response(1))
        await first.close()
        let holder = try Vault.open(at: live.path, keyProvider: live.keys, create: false)
        try await holder.rotate(TokenValues.response(2, withIdentity: false))
        let copy = DamageFixture()
        for suffix in ["", "-wal", "-header"] {
            try FileManager.default.copyItem(atPath: live.path + suffix, toPath: copy.path + suffix)
        }
        for suffix in ["", ".generation"] {
            try FileManager.default.copyItem(atPath: live.keyPath + suffix, toPath: copy.keyPath + suffix)
        }
        await holder.close()
        return copy
    }

    @Test func aDamagedPageOneLeavesTheLogAndTheMainFileAsTheyWere() async throws {
        let vault = try await Self.hotCopy()
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: vault.files.wal))
        #expect(walBefore.count > Int(CorruptionDiagnosis.walHeaderSize))
        // One byte of page 1's ciphertext (past its 16-byte salt): its HMAC fails on the first read.
        var database = try Data(contentsOf: URL(fileURLWithPath: vault.path))
        database[100] ^= 0x01
        try database.write(to: URL(fileURLWithPath: vault.path))

        do {
            let opened = try vault.open()
            await opened.close()
            Issue.record("a vault with a damaged page 1 opened")
        } catch {
            guard case .corrupted = error else {
                Issue.record("expected corrupted, got \(error)")
                return
            }
        }
        let walAfter = FileManager.default.contents(atPath: vault.files.wal)
        #expect(walAfter == walBefore, "the write-ahead log was checkpointed or removed")
        #expect(FileManager.default.contents(atPath: vault.path) == database, "the main file was written")
    }

    /// The log cut inside its first frame (2104 bytes: its header, one frame header and half a
    /// page), so no frame of the last commit survives: refused as `damagedWAL`, log untouched.
    /// Found by the vault-open fuzz target (input `04 38 08 00`): in a release build the refused
    /// connection was deinitialized before `closePreservingEvidence` opened its holder, and its
    /// close deleted the log. A debug build keeps the connection alive long enough, so this test
    /// shows the bug only when built with -O; the next test shows it in any build.
    @Test func aLogCutInsideItsFirstFrameIsLeftAsItWas() async throws {
        let vault = try await Self.hotCopy()
        let wal = try Data(contentsOf: URL(fileURLWithPath: vault.files.wal)).prefix(2104)
        try wal.write(to: URL(fileURLWithPath: vault.files.wal))
        let database = FileManager.default.contents(atPath: vault.path)
        do {
            let opened = try vault.open()
            await opened.close()
            Issue.record("a vault that lost its last commit opened")
        } catch {
            #expect("\(error)".contains("damagedWAL") || "\(error)".contains("write-ahead"), "\(error)")
        }
        let after = FileManager.default.contents(atPath: vault.files.wal)
        #expect(after == wal, "the log changed: \(wal.count) bytes before, \(after?.count ?? -1) after")
        #expect(FileManager.default.contents(atPath: vault.path) == database, "the main file was written")
    }

    /// `closePreservingEvidence` closes the refused connection while its holder is open, however
    /// many references to the object are left: when its last reference goes is up to ARC (the
    /// optimizer moved it earlier in the fuzz target's release build; a caller's binding or an
    /// error value can move it later). A second reference, dropped only after the call, stands
    /// in for that timing here, in any build: closed by that last release, the connection was
    /// the last one on the file and checkpointed the log into the main file and deleted it.
    @Test func aRefusedConnectionClosesWhileItsHolderIsOpenWhoeverStillHoldsIt() async throws {
        let vault = try await Self.hotCopy()
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: vault.files.wal))
        #expect(walBefore.count > Int(CorruptionDiagnosis.walHeaderSize))
        let databaseBefore = FileManager.default.contents(atPath: vault.path)
        let keys = try VaultOpener(files: vault.files, keyProvider: vault.keys, now: Date(), create: false).unlock().keys
        do {
            var connection: Connection? = try vault.raw()
            // A read opens the log and the shared memory, as the refused open's reads did.
            _ = try connection?.scalarInt("SELECT count(*) FROM sqlite_master")
            let elsewhere = connection
            CorruptionDiagnosis(files: vault.files, keys: keys).closePreservingEvidence(&connection)
            withExtendedLifetime(elsewhere) {}
        }
        // Every reference to the connection is gone here.
        let walAfter = FileManager.default.contents(atPath: vault.files.wal)
        #expect(walAfter == walBefore, "the log changed: \(walBefore.count) bytes before, \(walAfter?.count ?? -1) after")
        #expect(FileManager.default.contents(atPath: vault.path) == databaseBefore, "the main file was written")
    }
}
