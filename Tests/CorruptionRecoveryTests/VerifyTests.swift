import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

extension CorruptionRecovery {
    @Suite("verify(): the full scan")
    struct VerifyTests {
        @Test("a healthy vault: intact, every page scanned")
        func healthyVault() async throws {
            let fixture = try await DamageFixture.make()
            let pages = fixture.pageCount
            let vault = try fixture.open()
            let report = try await vault.verify()
            #expect(report.intact)
            #expect(report.pagesScanned == pages)
            #expect(report.elapsed > 0)
            // With commits in the log, the scan reads the log's pages too.
            try await vault.rotate(TokenValues.response(10, withIdentity: false))
            let afterWrite = try await vault.verify()
            #expect(afterWrite.intact)
            #expect(afterWrite.pagesScanned >= pages)
            await vault.close()
            await #expect(throws: VaultError.closed) { try await vault.verify() }
        }

        @Test("damage that happens while the vault is open: verify reads the disk, not the cached pages")
        func damageWhileOpen() async throws {
            let fixture = try await DamageFixture.make()
            let page = try fixture.rootPage(of: "sessions")
            let vault = try fixture.open()
            // The open read (and cached) this page; it is damaged on disk afterwards.
            #expect(try await vault.currentSession() != nil)
            try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + 700)
            let report = try await vault.verify()
            #expect(report.findings.first?.kind == .damagedPage)
            #expect(report.findings.first?.page == page)
            #expect(report.findings.first?.table == "sessions")
            await vault.close()
            try await RecoveryCheck.expectCleanRecovery(fixture, from: CorruptionReason(.damagedPage, report.findings.first?.detail ?? ""))
        }

        @Test("Vault.verify(at:keyProvider:) without an open vault: the report, damage included")
        func staticVerify() async throws {
            let healthy = try await DamageFixture.make()
            let report = try Vault.verify(at: healthy.path, keyProvider: healthy.keys)
            #expect(report.intact)
            #expect(report.pagesScanned == healthy.pageCount)

            let damaged = try await Scenarios.damagedAuditLogPage()
            let found = try Vault.verify(at: damaged.path, keyProvider: damaged.keys)
            #expect(found.findings.first?.kind == .damagedPage)
            #expect(found.findings.first?.table == "audit_log")

            // Damage the open finds comes back as the first finding, and the scan still runs.
            let moved = try await Scenarios.sealMovedToAnotherColumn()
            let atOpen = try Vault.verify(at: moved.path, keyProvider: moved.keys)
            #expect(atOpen.findings.first?.kind == .recordAuthenticationFailed)
            #expect(atOpen.pagesScanned == moved.pageCount)

            let wrong = try await Scenarios.wrongKey()
            #expect(try Vault.verify(at: wrong.path, keyProvider: wrong.keys).findings.map(\.kind) == [.wrongKey])

            let nowhere = TemporaryDirectory()
            #expect(throws: VaultError.io(FileIOError(operation: "stat", path: nowhere.file("none.db"), errno: ENOENT))) {
                try Vault.verify(at: nowhere.file("none.db"), keyProvider: KeyFileProvider(path: nowhere.file("none.key")))
            }
        }

        @Test("the page scan reads free pages too, which integrity_check never reads")
        func damagedFreePage() async throws {
            let fixture = try await DamageFixture.make()
            // Free pages: the rows of a filled and emptied table go to the freelist.
            do {
                let connection = try fixture.raw()
                try connection.execute("CREATE TABLE scratch (x BLOB); INSERT INTO scratch VALUES (randomblob(20000)); DROP TABLE scratch;")
                #expect(try connection.scalarInt("PRAGMA freelist_count") ?? 0 >= 4)
            }
            let freePage = fixture.pageCount - 1
            try fixture.flipByte(at: (freePage - 1) * DamageFixture.pageSize + 300)
            do {
                let connection = try fixture.raw()
                #expect(try connection.scalarText("PRAGMA integrity_check") == "ok", "integrity_check alone misses it")
            }
            let examination = await fixture.examine()
            #expect(examination.openError == nil)
            #expect(examination.dataUnaltered == true)
            let finding = try #require(examination.report?.findings.first)
            #expect(finding.kind == .damagedPage)
            #expect(finding.page == freePage)
            #expect(finding.table == nil)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }
    }
}
