import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("Vault behaviour: activity, clock, events, delegated subject, audit cap")
struct VaultBehaviourTests {
    @Test func touchIsCoalescedAndSurvivesClose() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue())
        fixture.clock.advance(by: 20)
        try await vault.touch()  // written: first touch
        let afterFirst = try #require(try await vault.currentSession()).lastActiveAt
        #expect(afterFirst == stored.issuedAt.addingTimeInterval(20))
        let generation = await vault.generation
        fixture.clock.advance(by: 5)
        try await vault.touch()  // within 15 s: kept in memory
        #expect(await vault.generation == generation, "touch never advances the durable generation")
        await vault.close()  // flushes the pending activity
        let reopened = try fixture.open()
        #expect(try await reopened.currentSession()?.lastActiveAt == stored.issuedAt.addingTimeInterval(25))
    }

    @Test func aClockMovedBackAfterAWriteIsNeverValid() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        fixture.clock.advance(by: -3600)
        let reopened = try fixture.open()
        guard case .expired(_, .clockRolledBack) = try await reopened.resumePath() else {
            Issue.record("a clock moved back an hour must not give valid"); return
        }
    }

    @Test func signOutCanClearTheBiometricPreferenceWhenThePolicySaysSo() async throws {
        var policy = ResumePolicy()
        policy.clearsBiometricPreferenceOnSignOut = true
        let fixture = TestVault()
        let vault = try fixture.open(policy: policy)
        try await vault.store(Fixtures.goTrue(), biometricEnabled: true)
        try await vault.signOut()
        let next = try await vault.store(Fixtures.goTrue(refresh: "next"))
        #expect(!next.biometricEnabled)
    }

    @Test func eventsAreEmittedOncePerChangeAndNeverForAnEcho() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let events = await vault.events()
        let stored = try await vault.store(Fixtures.goTrue())
        try await vault.store(Fixtures.goTrue())  // the same tokens again: an echo
        try await vault.setBiometricUnlock(true)
        try await vault.switchActiveSubject(to: "patient-42", validatedBy: "validation-7781")
        try await vault.signOut()
        try await vault.wipe()
        var received: [VaultEvent] = []
        for await event in events { received.append(event) }
        #expect(
            received == [
                .tokenUpdated(stored.refreshTokenFingerprint), .biometricChanged(true),
                .activeSubjectChanged("patient-42"), .signedOut, .wiped(nil)
            ])
    }

    @Test func theDelegatedSubjectNeedsAServerValidationAndIsAudited() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await #expect(throws: VaultError.self) { try await vault.switchActiveSubject(to: "patient-42", validatedBy: "") }
        #expect(try await vault.currentSession()?.activeSubject == nil)
        try await vault.switchActiveSubject(to: "patient-42", validatedBy: "validation-7781")
        #expect(try await vault.currentSession()?.activeSubject == "patient-42")
        guard case .session(let session, _, _) = try await vault.snapshot() else { Issue.record("no session"); return }
        #expect(session.activeSubject == "patient-42")
        let audit = try await vault.auditEvents(limit: 5)
        #expect(audit.contains { $0.kind == .activeSubjectChanged && $0.reason == "patient-42" })
    }

    @Test func theAuditLogIsCappedAndHoldsNoTokens() async throws {
        var policy = ResumePolicy()
        policy.auditLogCapacity = 5
        let fixture = TestVault()
        let vault = try fixture.open(policy: policy)
        try await vault.store(Fixtures.goTrue())
        for index in 0..<12 { try await vault.rotate(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-r\(index)", access: "a\(index)")) }
        let audit = try await vault.auditEvents(limit: 100)
        #expect(audit.count == 5)
        #expect(audit.allSatisfy { $0.fingerprint?.hex.count == 16 })
        #expect(!"\(audit)".contains(Fixtures.refreshMarker))
    }

    @Test func aFailedWriteLeavesTheCommittedSessionIntact() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue())
        // A read-only database file: the next durable write fails with a typed error.
        await vault.close()
        chmod(fixture.path, 0o400)
        chmod(fixture.files.wal, 0o400)
        defer { chmod(fixture.path, 0o600); chmod(fixture.files.wal, 0o600) }
        if getuid() == 0 {
            // root ignores file modes; a read-only open shows the same path instead.
            let readOnly = try Connection(path: fixture.path, create: false, readOnly: true)
            let keys = try VaultKeys(root: fixture.keys.rootKey(recorded: nil, create: false).bytes)
            try keys.databaseRawKey.withUnsafeBytes { try readOnly.key($0) }
            try readOnly.pinCipherSettings(pageSize: 4096, kdfIterations: 64_000)
            #expect(throws: SQLiteError.self) { try readOnly.execute("UPDATE sessions SET email = 'x'") }
        } else {
            let reopened = try fixture.open()
            await #expect(throws: VaultError.self) { try await reopened.rotate(Fixtures.goTrue(refresh: "never-stored")) }
        }
        chmod(fixture.path, 0o600)
        chmod(fixture.files.wal, 0o600)
        let check = try fixture.open()
        #expect(try await check.currentSession() == stored)
    }
}

extension VaultBehaviourTests {
    @Test func rotateWithoutASessionSaysNoSessionAndALateResultSaysStale() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        await #expect(throws: VaultError.noSession) { try await vault.rotate(Fixtures.goTrue()) }
        let stored = try await vault.store(Fixtures.goTrue())
        try await vault.signOut()
        await #expect(throws: VaultError.staleSession) {
            try await vault.rotate(Fixtures.goTrue(refresh: "late"), expectedSessionID: stored.id, expectedVersion: stored.tokenVersion)
        }
        await #expect(throws: VaultError.noSession) { try await vault.rotate(Fixtures.goTrue(refresh: "late")) }
    }

    @Test func inspectionFieldsAreTyped() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        var inspection = try await vault.inspect()
        #expect(inspection.state.emptyReason == nil, "a session is current")
        #expect(inspection.header.keyDerivation == .stored)
        #expect(inspection.migrations.allSatisfy { $0.appliedAt == fixture.clock.now }, "applied when the vault was created")
        fixture.clock.advance(by: 60)
        try await vault.signOut()
        inspection = try await vault.inspect()
        #expect(inspection.state.emptyReason == .signedOut)
        #expect(inspection.recentEvents.map(\.kind) == [.stored, .signedOut])
        #expect(inspection.recentEvents.last?.at == fixture.clock.now)
    }

    @Test func anAuditKindThisVersionDoesNotKnowIsKeptAsWritten() throws {
        #expect(AuditEvent.Kind(code: "rotated") == .rotated)
        let unknown = AuditEvent.Kind(code: "passkeyAdded")
        #expect(unknown == .unrecognized("passkeyAdded"))
        #expect(unknown.code == "passkeyAdded")
        let encoded = try JSONEncoder().encode([AuditEvent.Kind.signedOut, unknown])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["signedOut","passkeyAdded"]"#)
        #expect(try JSONDecoder().decode([AuditEvent.Kind].self, from: encoded) == [.signedOut, unknown])
    }
}
