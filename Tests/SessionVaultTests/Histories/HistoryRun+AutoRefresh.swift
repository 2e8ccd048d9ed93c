import Foundation
import SessionVaultTestSupport
@testable import SessionVault
import SessionVaultTesting

/// The auto-refresh loop as a history step.
extension HistoryRun {
    /// The clock moves to the token's due time (the loop is there to keep the session alive
    /// over time); the app's loop starts on a clock that stands at the device's time and runs
    /// until it settles (asleep until its next deadline, or waiting for a sign-in or an unlock);
    /// then it stops. It must refresh exactly when a background call would (the model's path
    /// for work the user did not start: a due token, an interrupted refresh, a clock moved back
    /// that one refresh re-anchors), once, and never while a 429 holds refreshes back.
    func autoRefresh(_ index: Int) async -> String {
        let moved = await advanceToDue()
        let before = server.refreshRequests
        let path = model.path(await view(0), now: device.now, forUser: false)
        let want: Int
        switch path {
        case .due(needsUser: false): want = resolveRefresh(0).1
        case .ended: want = 0
        case .valid, .locked, .due(needsUser: true): want = 0
        }
        let clock = SteppedClock(device)
        let manager = managers[0]
        await manager.startAutoRefresh(clock: clock)
        // Settled: asleep until a deadline the clock will not reach, or waiting for a wake.
        let end = Date().addingTimeInterval(30)
        var settled = false
        while !settled && Date() < end {
            let waitsForWake = await manager.autoRefreshWake != nil
            if !clock.pendingDeadlines.isEmpty || waitsForWake { settled = true; break }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        await manager.stopAutoRefresh()
        let sent = server.refreshRequests - before
        if !settled { fail(index, "the auto-refresh loop never settled (neither asleep nor waiting for a wake)") }
        if sent != want { fail(index, "the auto-refresh loop sent \(sent) refresh requests, the model expected \(want)") }
        if case .ended = path, model.family != nil { model.family = nil }
        return moved + "settled after \(sent) refresh requests"
    }
}
