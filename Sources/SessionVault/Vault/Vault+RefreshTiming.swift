import Foundation

extension Vault {
    /// The local time before which no process sends a refresh (a server's 429 `retry_after`);
    /// nil when none is pending. Notices what another process recorded first.
    func refreshNotBefore() throws(VaultError) -> Date? {
        try reloadIfChangedElsewhere()
        return state.refreshNotBefore
    }

    /// How long no refresh may be sent, by the 429 recorded in the vault: never longer than the
    /// server asked (a record from before migration 9, whose wait is unknown, for at most a day).
    /// When the clock moved back since the record was made (more of the wait is left than was
    /// asked), the wait is counted again from now: what was left of it at the latest time the
    /// vault saw, at most what was asked. Nil when none is left.
    func refreshDeferral() throws(VaultError) -> TimeInterval? {
        try reloadIfChangedElsewhere()
        guard let notBefore = state.refreshNotBefore else { return nil }
        let asked = state.refreshDeferredFor ?? Self.longestUnknownWait
        let remaining = notBefore.timeIntervalSince(clock())
        guard remaining > asked + 1 else { return remaining > 0 ? remaining : nil }
        // Recounted under the lock, on the record as it is now (another process may have
        // recorded a newer 429 meanwhile).
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try reloadIfChangedElsewhere()
        guard let current = state.refreshNotBefore else { return nil }
        let currentAsked = state.refreshDeferredFor ?? Self.longestUnknownWait
        let currentRemaining = current.timeIntervalSince(clock())
        guard currentRemaining > currentAsked + 1 else { return currentRemaining > 0 ? currentRemaining : nil }
        let left = min(currentAsked, max(0, current.timeIntervalSince(state.lastWallClock)))
        try write("refreshDeferralRecounted") { connection, now in
            try VaultStateRecord.moveRefreshDeferral(to: now.addingTimeInterval(left).unixMilliseconds, in: connection)
        }
        logger.notice("clock moved back under a recorded 429; its wait counted again from now", metadata: ["refresh.retryAfter": "\(left)"])
        return left > 0 ? left : nil
    }

    /// How long a recorded 429 whose asked wait is unknown (written before migration 9) is
    /// trusted: a day, the longest delay the refresh takes from a server.
    static let longestUnknownWait: TimeInterval = 86_400

    /// Records a server's 429 for every process of the app: no refresh is sent before `time`,
    /// a wait of `wait` seconds the server asked for. A later time never moves back to an
    /// earlier one; a successful rotation or a new session clears it.
    func deferRefreshes(until time: Date, wait: TimeInterval) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try write("refreshDeferred") { connection, _ in
            try VaultStateRecord.deferRefreshes(until: time.unixMilliseconds, wait: UnixMilliseconds.from(seconds: wait), in: connection)
        }
    }

    /// After the clock moved back, makes the current time the vault's reference again: the
    /// latest time seen becomes now and, when `userPresent`, activity recorded in the future is
    /// brought back to now. Called only on evidence that now is real: an unlock the user just
    /// passed (`userPresent`), or a refresh the server just answered. Without it, every later
    /// decision would see the rollback again and refresh (or lock) once per call until the clock
    /// caught up. A refresh alone never re-anchors activity: a background refresh must not
    /// erase the evidence that makes the next screen ask for an unlock. A server's 429 recorded
    /// before keeps what was left of its wait, counted from now (see
    /// `VaultStateRecord.reanchorWallClock`): never longer than the server asked.
    /// A no-op (no write) when the clock did not move back.
    func reanchorClockIfMovedBack(userPresent: Bool) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try reloadIfChangedElsewhere()
        let now = clock()
        let lastActive = userPresent ? max(pendingActivity ?? .distantPast, state.current?.session.lastActiveAt ?? .distantPast) : .distantPast
        guard ResumeDecision.clockMovedBack(lastWallClock: state.lastWallClock, lastActiveAt: lastActive, now: now, policy: policy) else { return }
        if userPresent {
            // Coalesced activity from before the re-anchor carries the old, later clock.
            pendingActivity = nil
            lastActivityWrite = nil
        }
        let id = userPresent ? state.current?.session.id : nil
        try write("clockReanchored") { connection, now in
            try VaultStateRecord.reanchorWallClock(to: now.unixMilliseconds, in: connection)
            if let id { try SessionRecord.lowerLastActive(of: id, to: now.unixMilliseconds, in: connection) }
            try audit(connection, .clockReanchored, sessionID: id, fingerprint: nil, reason: nil, at: now)
        }
        logger.notice("clock moved back; vault re-anchored to now", metadata: ["vault.operation": "clockReanchored"])
    }
}
