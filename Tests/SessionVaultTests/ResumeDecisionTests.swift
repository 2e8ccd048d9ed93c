import Foundation
import Testing
@testable import SessionVault

@Suite("ResumeDecision.decide: every row of the path table with an injected clock")
struct ResumeDecisionTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = ResumePolicy()

    func session(
        accessIn: TimeInterval? = 3600, refreshIn: TimeInterval? = 30 * 86400, lastActiveAgo: TimeInterval = 0,
        hasRefresh: Bool = true, hasAccess: Bool = true, deadlineIn: TimeInterval? = nil, pending: Bool = false
    ) -> Session {
        Session(
            id: "s1", identity: SessionIdentity(subject: "u"), activeSubject: nil, tokenType: "bearer", scope: nil,
            refreshTokenFingerprint: hasRefresh ? Fingerprint(hex: "00112233aabbccdd") : nil,
            accessTokenFingerprint: hasAccess ? Fingerprint(hex: "99887766aabbccdd") : nil,
            accessExpiresAt: accessIn.map { start + $0 }, serverExpiresAt: nil, refreshExpiresAt: refreshIn.map { start + $0 },
            issuedAt: start - 60, absoluteDeadline: deadlineIn.map { start + $0 }, lastActiveAt: start - lastActiveAgo,
            biometricEnabled: false, tokenVersion: 1, refreshPendingSince: pending ? start - 5 : nil)
    }

    func decide(_ session: Session, now: Date? = nil, lastSeen: Date? = nil, policy: ResumePolicy? = nil) -> ResumePath {
        ResumeDecision.decide(
            .session(session, lastWallClock: lastSeen ?? start - 1, serverClockOffset: 0),
            now: now ?? start, policy: policy ?? self.policy)
    }

    @Test func aliveAccessTokenIsValid() {
        #expect(decide(session()).name == "valid")
    }

    @Test func accessTokenPastExpiryIsExpired() {
        #expect(decide(session(accessIn: -1)) == .expired(session(accessIn: -1), .accessTokenExpired))
    }

    @Test func accessTokenInsideTheMinimumTTLIsExpiredAhead() {
        let s = session(accessIn: 4 * 60)
        #expect(decide(s) == .expired(s, .accessTokenExpiringSoon))
        let justOutside = session(accessIn: 5 * 60 + 1)
        #expect(decide(justOutside).name == "valid")
    }

    @Test func noCachedAccessTokenNeedsARefresh() {
        let s = session(hasAccess: false)
        #expect(decide(s) == .expired(s, .noAccessToken))
    }

    @Test func idleTimeoutKeepsTokensButAsksForUnlock() {
        let s = session(lastActiveAgo: 31 * 60)
        #expect(decide(s) == .expired(s, .idle))
        #expect(decide(session(lastActiveAgo: 29 * 60)).name == "valid")
    }

    @Test func deadRefreshTokenIsMissing() {
        #expect(decide(session(accessIn: -10, refreshIn: -1)) == .missing(.refreshTokenExpired))
    }

    @Test func absoluteLifetimeEndsTheSessionEvenWithLiveTokens() {
        #expect(decide(session(deadlineIn: -1)) == .missing(.absoluteLifetimePassed))
        var tenant = policy
        tenant.absoluteLifetime = 30
        #expect(decide(session(), policy: tenant) == .missing(.absoluteLifetimePassed))
    }

    @Test func clockMovedBackIsNeverValid() {
        let s = session()
        #expect(decide(s, lastSeen: start + 3600) == .expired(s, .clockRolledBack))
        // Within the tolerance it is ordinary skew.
        #expect(decide(s, lastSeen: start + 60).name == "valid")
    }

    @Test func anInterruptedRefreshAsksForARefresh() {
        let s = session(pending: true)
        #expect(decide(s) == .expired(s, .refreshInterrupted))
    }

    @Test func noRefreshTokenLivesOnlyAsLongAsTheAccessToken() {
        #expect(decide(session(hasRefresh: false)).name == "valid")
        #expect(decide(session(accessIn: -1, hasRefresh: false)) == .missing(.refreshTokenExpired))
    }

    @Test func emptyCorruptedAndUnavailableSnapshotsMapThrough() {
        #expect(ResumeDecision.decide(.empty(.signedOut), now: start, policy: policy) == .missing(.signedOut))
        let reason = CorruptionReason(.rollback, "older copy")
        #expect(ResumeDecision.decide(.corrupted(reason), now: start, policy: policy) == .corrupted(reason))
        #expect(
            ResumeDecision.decide(.unavailable(retryAfter: 2, detail: "locked"), now: start, policy: policy)
                == .unavailable(retryAfter: 2, detail: "locked"))
    }
}
