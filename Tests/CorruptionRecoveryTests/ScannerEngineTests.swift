import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    /// The page scan has one path per engine: SQLCipher 4.x answers `PRAGMA cipher_integrity_check`,
    /// 3.4.1 does not know it (an unknown PRAGMA answers nothing, which must not read as "clean")
    /// and is scanned through the online backup instead. Each leg of CI runs its engine's path.
    @Suite("The page scan on this engine")
    struct ScannerEngineTests {
        @Test("a damaged page is named, by the scan path this engine has")
        func theEnginesOwnPathNamesTheDamagedPage() async throws {
            let fixture = try await DamageFixture.make()
            let page = try fixture.rootPage(of: "sessions")
            try fixture.flipByte(at: (page - 1) * DamageFixture.pageSize + 500)
            let connection = try fixture.raw()
            let version = try #require(try connection.cipherVersion())
            let integrityRows = try Self.rows(connection, "PRAGMA cipher_integrity_check")
            if PageScanner.majorVersion(version) >= 4 {
                #expect(PageScanner.usesCipherIntegrityCheck(connection))
                #expect(integrityRows.contains { PageScanner.pageNumber(in: $0) == page }, "cipher_integrity_check names page \(page): \(integrityRows)")
            } else {
                #expect(!PageScanner.usesCipherIntegrityCheck(connection))
                #expect(integrityRows.isEmpty, "SQLCipher \(version) does not know cipher_integrity_check")
            }
            let scan = PageScanner.scan(connection)
            #expect(scan.damagedPage == page)
            #expect(!scan.isClean)
        }

        @Test("an intact vault scans clean on this engine's path")
        func anIntactVaultScansClean() async throws {
            let fixture = try await DamageFixture.make()
            let connection = try fixture.raw()
            let scan = PageScanner.scan(connection)
            #expect(scan.isClean)
            #expect(scan.pageCount == fixture.pageCount)
        }

        private static func rows(_ connection: Connection, _ sql: String) throws -> [String] {
            let statement = try connection.prepare(sql)
            var rows: [String] = []
            while try statement.step() { rows.append(statement.text(0) ?? "") }
            return rows
        }
    }
}
