import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("Damage to the database file: every page, truncation, foreign files")
    struct PageDamageTests {
        /// Offsets inside a page, each in a different part of SQLCipher 3's page layout: the page
        /// data, the IV and the HMAC of the 48-byte reserve area at the end of the page.
        static let authenticatedOffsets = [100, 2_000, DamageFixture.pageSize - 40, DamageFixture.pageSize - 20]

        @Test("one byte flipped in every page, in turn: corrupted at open or at verify, never altered data")
        func flippingOneByteInAnyPageIsDetected() async throws {
            let pristine = try await DamageFixture.make()
            let pages = pristine.pageCount
            #expect(pages >= 10, "the vault spans its tables, indexes and the overflow pages of a large row")
            var openDetections = 0
            var verifyDetections = 0
            for page in 1...pages {
                let offsets = page == 1 ? [5] + Self.authenticatedOffsets : Self.authenticatedOffsets
                for offset in offsets {
                    let fixture = try pristine.copy()
                    try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + offset)
                    let examination = await fixture.examine()
                    let label = "page \(page) offset \(offset)"
                    #expect(examination.dataUnaltered != false, "\(label): a vault that opened showed altered data")
                    switch examination.kind {
                    case .notADatabase?:
                        #expect(page == 1, "\(label): only page 1 makes the whole file unreadable")
                    case .damagedPage?:
                        #expect(examination.page == page, "\(label): the finding names page \(examination.page.map(String.init) ?? "none")")
                    default:
                        Issue.record(
                            "\(label): expected notADatabase or damagedPage, got \(examination.kind?.rawValue ?? "nothing"); error \(examination.openError.map { "\($0)" } ?? "none")"
                        )
                    }
                    if examination.openReason != nil { openDetections += 1 } else { verifyDetections += 1 }
                    let reason = try #require(examination.reason, "\(label)")
                    try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
                }
            }
            // Both stages do real work here: the launch reads some pages, only verify reads the rest.
            #expect(openDetections > 0)
            #expect(verifyDetections > 0)
        }

        /// SQLCipher 3 fills the 48-byte reserve with random bytes and then writes the IV (16) and
        /// the HMAC (20) over its start; the last 12 bytes are neither read nor authenticated. A
        /// flip there changes nothing that is ever read: the vault opens with its data intact.
        @Test("the unauthenticated padding at the end of each page carries no data")
        func flippingThePaddingOfTheReserveChangesNothing() async throws {
            let pristine = try await DamageFixture.make()
            for page in [2, pristine.pageCount] {
                let fixture = try pristine.copy()
                try fixture.flipByte(at: page * DamageFixture.pageSize - 6)
                let examination = await fixture.examine()
                #expect(examination.openError == nil)
                #expect(examination.dataUnaltered == true)
                #expect(examination.report?.intact == true)
            }
        }

        @Test(
            "truncated at several offsets: truncated at open",
            arguments: ["zero", "inside page 1", "mid page 2", "two pages", "last page gone", "one byte short"])
        func truncationIsDetected(_ cut: String) async throws {
            let fixture = try await DamageFixture.make()
            let pageSize = DamageFixture.pageSize
            let size: Int
            switch cut {
            case "zero": size = 0
            case "inside page 1": size = 100
            case "mid page 2": size = pageSize + 1_000
            case "two pages": size = 2 * pageSize
            case "last page gone": size = (fixture.pageCount - 1) * pageSize
            default: size = fixture.size() - 1
            }
            try fixture.truncate(to: size)
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .truncated, "\(cut): \(examination.openError.map { "\($0)" } ?? "opened")")
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("a zero-length database file: truncated")
        func zeroLengthFile() async throws {
            let fixture = try await DamageFixture.make()
            try Data().write(to: URL(fileURLWithPath: fixture.path))
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .truncated)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("random bytes of the right size: not a database")
        func randomBytes() async throws {
            let fixture = try await Scenarios.randomBytesOfTheRightSize()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .notADatabase)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("a plain SQLite database with the same schema in its place: misconfigured, not wiped")
        func plainSQLiteDatabase() async throws {
            let fixture = try await Scenarios.plainSQLiteWithTheSameSchema()
            // It really is a readable, unencrypted SQLite file with the vault's tables.
            do {
                let plain = try Connection(path: fixture.path, create: false, readOnly: true)
                #expect(try plain.scalarInt("SELECT count(*) FROM sessions") == 1)
            }
            // Plain SQLite magic at offset 0: never a SessionVault file, whatever lies beside it.
            await fixture.expectRefusedUntouched()
        }

        @Test("a damaged page the launch reads: damagedPage at open, naming the page and its table")
        func damagedPageReadAtOpen() async throws {
            let fixture = try await Scenarios.damagedSessionsPage()
            let page = try fixture.rootPage(of: "sessions")
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .damagedPage)
            #expect(PageScanner.pageNumber(in: reason.detail) == page)
            #expect(reason.detail.contains("table sessions"))
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        @Test("a damaged page no launch reads: the vault opens intact, verify names the page and table")
        func damagedPageFoundOnlyByVerify() async throws {
            let fixture = try await Scenarios.damagedAuditLogPage()
            let page = try fixture.rootPage(of: "audit_log")
            let examination = await fixture.examine()
            #expect(examination.openError == nil)
            #expect(examination.dataUnaltered == true)
            let finding = try #require(examination.report?.findings.first)
            #expect(finding.kind == .damagedPage)
            #expect(finding.page == page)
            #expect(finding.table == "audit_log")
            #expect(examination.report?.findings.count == 1)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        /// The last overflow page of the session row (the tail of the large biometric domain
        /// state): SQLCipher 3.4.1 hands it over zeroed without an error, so the row would read as
        /// valid with altered bytes. The open's probe turns that into damagedPage.
        @Test("the last overflow page of the current row: damagedPage at open, not silently zeroed data")
        func damagedLastOverflowPageIsNotReadAsData() async throws {
            let pristine = try await DamageFixture.make()
            // Find the page whose damage changes what a bare read of the row returns.
            var silentPage: Int?
            for page in 2...pristine.pageCount {
                let probe = try pristine.copy()
                try probe.flipByte(at: (page - 1) * DamageFixture.pageSize + 500)
                // A plain read of the row, without the vault's probe: succeeds, with other bytes.
                if let bytes = try? Self.domainStateReadRaw(probe), bytes != pristine.expected?.domainState {
                    silentPage = page
                    break
                }
            }
            let page = try #require(silentPage, "SQLCipher 3.4.1 hands a damaged last overflow page over as zeroes")
            let fixture = try pristine.copy()
            try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + 500)
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .damagedPage)
            #expect(PageScanner.pageNumber(in: reason.detail) == page)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        private static func domainStateReadRaw(_ fixture: DamageFixture) throws -> [UInt8]? {
            let connection = try fixture.raw()
            let statement = try connection.prepare("SELECT biometric_domain_state FROM sessions")
            guard try statement.step() else { return nil }
            return statement.blob(0)
        }
    }
}
