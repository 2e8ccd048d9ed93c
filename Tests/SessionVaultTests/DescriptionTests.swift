import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// What an app prints: one readable line per value, fingerprints instead of tokens, and no
/// email address or display name.
@Suite("Descriptions: short, readable, never a token")
struct DescriptionTests {
    @Test func aSessionPrintsAsOneLineWithFingerprintsOnly() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let session = try await vault.store(Fixtures.goTrue(), biometricEnabled: true)
        let text = "\(session)"
        let refresh = try #require(session.refreshTokenFingerprint?.hex)
        let access = try #require(session.accessTokenFingerprint?.hex)
        #expect(
            text == "Session(\(session.id.prefix(8))…, subject user-123, refresh fp \(refresh) until 2027-02-14T08:00:00Z, "
                + "access fp \(access) until 2027-01-15T09:00:00Z, version 1, biometric)")
        #expect(!text.contains("mentor@example.org") && !text.contains("Kari"))
        #expect("\(session.identity)" == "SessionIdentity(subject user-123, tenant tenant-9, roles peer_mentor)")
    }

    @Test func outcomesPathsEventsAndResponsesNameTheirCaseAndNoToken() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let response = try Fixtures.goTrue()
        let session = try await vault.store(response)
        let access = try #require(try await vault.accessToken())
        let short = "\(session.id.prefix(8))…"
        let texts = [
            "\(response)", "\(ResumePath.valid(session))", "\(ResumePath.expired(session, .idle))", "\(ResumePath.missing(.signedOut))",
            "\(ResumeOutcome.home(session))", "\(ResumeOutcome.login(reason: .refreshRejected, showExpiredMessage: true))",
            "\(ResumeOutcome.offline(session, retryAfter: 2))", "\(FreshTokenOutcome.token(access, session))",
            "\(VaultEvent.tokenUpdated(session.refreshTokenFingerprint))", "\(VaultEvent.wiped(.rollback))"
        ]
        #expect(texts[0] == "TokenResponse(bearer, access expires in 3600 s, refresh token present, subject user-123)")
        #expect(texts[1] == "valid(session \(short))")
        #expect(texts[2] == "expired(idle, session \(short))")
        #expect(texts[3] == "missing(signedOut)")
        #expect(texts[4] == "home(\(session))")
        #expect(texts[5] == "login(refreshRejected, show expired message)")
        #expect(texts[6] == "offline(retry in 2.0 s, \(session))")
        #expect(texts[7] == "token(Token(fp:\(session.accessTokenFingerprint?.hex ?? "?")), \(session))")
        #expect(texts[8] == "tokenUpdated(fp \(session.refreshTokenFingerprint?.hex ?? "?"))")
        #expect(texts[9] == "wiped(rollback)")
        for text in texts {
            #expect(!text.contains(Fixtures.refreshMarker) && !text.contains(Fixtures.accessMarker), "a token in: \(text.prefix(40))")
        }
    }
}
