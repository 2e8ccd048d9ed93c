import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("Every taxonomy entry is produced for real and recovered from")
    struct TaxonomyCoverageTests {
        @Test("produced by real damage, reported with its kind, recovered cleanly", arguments: CorruptionKind.allCases)
        func everyKind(_ kind: CorruptionKind) async throws {
            let fixture = try await Scenarios.damaged(for: kind)
            let examination = await fixture.examine()
            #expect(examination.kind == kind, "got \(examination.kind?.rawValue ?? "nothing"); error \(examination.openError.map { "\($0)" } ?? "none")")
            #expect(examination.dataUnaltered != false, "a vault that opened showed altered data")
            let reason = try #require(examination.reason)
            // Details are for people and tombstones: they must not carry token or key bytes.
            for secret in fixture.secrets {
                #expect(!RecoveryCheck.contains(Array(reason.detail.utf8), secret), "the detail of \(kind.rawValue) carries secret bytes")
            }
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason, keepsAnotherVaultsKey: kind == .wrongKey)
        }
    }
}
