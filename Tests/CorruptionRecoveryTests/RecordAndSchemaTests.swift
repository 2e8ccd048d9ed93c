import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("Damage a keyed writer can do: schema, migrations, sealed records, invariants")
    struct RecordAndSchemaTests {
        @Test("a recorded migration whose checksum differs from the shipped SQL: migrationChecksumMismatch")
        func migrationChecksumMismatch() async throws {
            let fixture = try await Scenarios.migrationChecksumChanged()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .migrationChecksumMismatch)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("a migration from a newer SessionVault: futureSchema, and recovery wipes it")
        func futureSchema() async throws {
            let fixture = try await Scenarios.migrationFromTheFuture()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .futureSchema)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the sealed refresh token moved into the access-token column: recordAuthenticationFailed")
        func sealMovedToAnotherColumn() async throws {
            let fixture = try await Scenarios.sealMovedToAnotherColumn()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .recordAuthenticationFailed)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the current row copied under another id: recordAuthenticationFailed")
        func sealMovedToAnotherRow() async throws {
            let fixture = try await Scenarios.sealMovedToAnotherRow()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .recordAuthenticationFailed)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("a moved seal in a row the launch does not read: found by verify, with its session id")
        func sealMovedInAnOldRowFoundByVerify() async throws {
            let fixture = try await Scenarios.sealMovedInAnOldRow()
            let examination = await fixture.examine()
            #expect(examination.openError == nil)
            #expect(examination.dataUnaltered == true)
            let finding = try #require(examination.report?.findings.first)
            #expect(finding.kind == .recordAuthenticationFailed)
            #expect(finding.sessionID == "0f0e0d0c0b0a09080706050403020100")
            #expect(finding.table == "sessions")
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("refresh expiry before issue time: invariantViolation")
        func refreshExpiryBeforeIssue() async throws {
            let fixture = try await Scenarios.refreshExpiryBeforeIssue()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .invariantViolation)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("the current session pointing nowhere: invariantViolation")
        func currentSessionPointingNowhere() async throws {
            let fixture = try await Scenarios.currentSessionPointingNowhere()
            let examination = await fixture.examine()
            let reason = try #require(examination.openReason)
            #expect(reason.kind == .invariantViolation)
            #expect(reason.detail.contains("nowhere"))
            try await RecoveryCheck.expectCleanRecovery(fixture, from: reason)
        }

        @Test("b-trees that no longer add up (every page authentic): structuralDamage from integrity_check")
        func structuralDamageFoundByVerify() async throws {
            let fixture = try await Scenarios.indexPointingAtAnotherTree()
            let examination = await fixture.examine()
            #expect(examination.openError == nil)
            #expect(examination.dataUnaltered == true)
            let findings = try #require(examination.report?.findings)
            #expect(!findings.isEmpty)
            #expect(findings.allSatisfy { $0.kind == .structuralDamage })
            #expect(findings.contains { $0.page != nil }, "\(findings.map(\.detail))")
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }

        @Test("a table the migrations created is gone: structuralDamage at open")
        func missingTable() async throws {
            let fixture = try await Scenarios.stateTableDropped()
            let examination = await fixture.examine()
            #expect(examination.openReason?.kind == .structuralDamage)
            try await RecoveryCheck.expectCleanRecovery(fixture, from: try #require(examination.reason))
        }
    }
}
