import Foundation
import Testing
@testable import SessionVault

/// Found by the session histories (seed 1 of the fifth generator, shrunk to three steps): a vault
/// damaged and recovered (wiped, its tombstone saying why), then a sign-in stored by an extension
/// that is killed after the store's commit and before the tombstone's removal. The new session was
/// there, and so was the old tombstone beside it: a later wipe for another reason would have kept
/// the stale reason (`ResumeManager` keeps the first reason of a wipe cut short), and the CLI
/// showed a wipe record beside a healthy session. Every kill point of the store is tried: the
/// tombstone goes, durably, before the session lands.
@Suite("A sign-in killed after a recovery", .serialized, .timeLimit(.minutes(3)))
struct SignInKilledAfterRecoveryTests {
    @Test func noKillPointLeavesTheOldTombstoneBesideTheNewSession() async throws {
        var stored = 0
        for point in 1...18 {
            let steps: [HistoryStep] = [.damage(.firstPage), .processFault(stop: false), .killedInsideWrite(signIn: true, at: point)]
            let run = try HistoryRun(seed: 1, steps: steps, lifetime: 3600)
            let violations = await run.run()
            #expect(violations.isEmpty, "killed after call \(point): \(violations.joined(separator: "; "))\n  \(run.trace.joined(separator: "\n  "))")
            if run.trace.last?.contains("the sign-in was stored") == true { stored += 1 }
        }
        #expect(stored > 0, "the sweep must reach past the store's commit")
    }
}
