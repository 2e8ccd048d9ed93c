import Foundation
import Testing
@testable import SessionVault
import SessionVaultTesting
import SessionVaultTestSupport

/// Found by the session histories (seed 1092 of the long soak, shrunk to seven steps): a server's
/// 429 asked for 8 s; the device's clock then moved back by 4,277 s and the user unlocked. The
/// unlock made the moved-back clock the vault's reference, but the recorded "no refresh before"
/// time stayed where the old clock had put it, so every process waited 3,964 s instead of at
/// most 8: the app answered offline for over an hour. Rule: a re-anchor carries the wait over,
/// counted from the latest time seen before; it is never longer than the server asked.
@Suite("A 429's wait after the clock moved back")
struct DeferralAfterClockMovedBackTests {
    static func vault(_ clock: ManualClock) async throws -> Vault {
        let directory = TemporaryDirectory("deferral-clock")
        let vault = try Vault.open(at: directory.file("vault.db"), keyProvider: KeyFileProvider(path: directory.file("vault.key")), clock: clock.function)
        try await vault.store(Fixtures.goTrue())
        return vault
    }

    @Test func anUnlockAfterTheClockMovedBackKeepsWhatWasLeftOfTheWait() async throws {
        let clock = ManualClock()
        let vault = try await Self.vault(clock)
        clock.advance(by: 45)
        try await vault.deferRefreshes(until: clock.now.addingTimeInterval(8), wait: 8)
        clock.advance(by: 3)
        try await vault.touch()
        clock.advance(by: -4277)
        try await vault.reanchorClockIfMovedBack(userPresent: true)
        let notBefore = try #require(try await vault.refreshNotBefore())
        // 8 s asked at +45, the latest time seen was +48: 5 s were left, counted from now.
        #expect(abs(notBefore.timeIntervalSince(clock.now) - 5) < 0.01, "waits \(notBefore.timeIntervalSince(clock.now)) s")
        await vault.close()
    }

    @Test func aWaitOverBeforeTheClockMovedBackIsDropped() async throws {
        let clock = ManualClock()
        let vault = try await Self.vault(clock)
        try await vault.deferRefreshes(until: clock.now.addingTimeInterval(8), wait: 8)
        clock.advance(by: 60)
        try await vault.touch()
        clock.advance(by: -4000)
        try await vault.reanchorClockIfMovedBack(userPresent: true)
        #expect(try await vault.refreshNotBefore() == nil)
        await vault.close()
    }

    @Test func aReanchorWithoutAWaitRecordsNone() async throws {
        let clock = ManualClock()
        let vault = try await Self.vault(clock)
        clock.advance(by: -4000)
        try await vault.reanchorClockIfMovedBack(userPresent: true)
        #expect(try await vault.refreshNotBefore() == nil)
        await vault.close()
    }
}
