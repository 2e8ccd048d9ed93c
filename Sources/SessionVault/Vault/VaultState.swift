import Foundation

/// What the vault holds right now, as read at open and kept current by every write.
struct VaultState {
    var current: SessionRecord?
    var tokens: StoredTokens
    var generation: UInt64
    var lastWallClock: Date
    var emptyReason: MissingReason
    var serverClockOffset: TimeInterval
    var biometricPreference: Bool
    /// No refresh is sent before this local time: a server's 429 `retry_after`, kept for every
    /// process (migration 7). Nil: none.
    var refreshNotBefore: Date? = nil
    /// Tells this vault from a later one at the same path (migration 6; see `GenerationWitness`).
    var vaultID: [UInt8]? = nil
    /// The connection's `PRAGMA data_version` in the same read transaction as the rows above:
    /// the value a later check compares with to learn whether another process committed since.
    /// Read in a separate transaction, a commit landing between the two would be taken as seen
    /// while the state still lacked it, and the process would act on that stale state until the
    /// next commit (a waiter that took the refresh lock after the holder rotated refreshed a
    /// version that was gone, and answered offline).
    var dataVersion: Int64 = 0

    /// `state` with its session gone: the "before" of a vault that was wiped, so that what the
    /// fresh vault holds is reported as new.
    static func emptied(_ state: VaultState) -> VaultState {
        var empty = state
        empty.current = nil
        empty.tokens = StoredTokens()
        return empty
    }

    var snapshot: VaultSnapshot {
        guard let current else { return .empty(emptyReason) }
        return .session(current.session, lastWallClock: lastWallClock, serverClockOffset: serverClockOffset)
    }

    /// Reads the state row and the current session, opening its tokens, then checks that they
    /// match the state's seal (see `StateSeal`). The seal is checked last, so that damage with a
    /// name of its own (a token that does not open, a dangling current session) keeps that name.
    /// Call inside a read transaction (`readCheckingPageAuthentication`): the data version is
    /// read first and starts the snapshot every row below is read from.
    static func load(from connection: Connection, keys: VaultKeys) throws -> VaultState {
        let dataVersion = try connection.scalarInt("PRAGMA data_version") ?? 0
        let stateRow = try connection.cached("""
            SELECT current_session_id, generation, last_wall_clock, empty_reason, server_clock_offset, biometric_preference, vault_id,
                state_mac, refresh_not_before
            FROM vault_state WHERE singleton = 1
            """)
        try stateRow.bind([])
        defer { stateRow.reset() }
        guard try stateRow.step() else { throw StateSeal.missingStateRow }
        let currentID = stateRow.text(0)
        let generation = stateRow.int64(1)
        guard generation > 0 else { throw CorruptionReason(.invariantViolation, "generation \(generation) is not positive") }
        var state = VaultState(
            current: nil, tokens: StoredTokens(), generation: UInt64(generation),
            lastWallClock: Date(unixMilliseconds: stateRow.int64(2)),
            emptyReason: MissingReason(code: stateRow.text(3) ?? ""),
            serverClockOffset: Double(stateRow.int64(4)) / 1000,
            biometricPreference: stateRow.int64(5) != 0,
            vaultID: stateRow.blob(6),
            dataVersion: dataVersion)
        // The seal's message, from the bytes these two statements read (see `StateSeal`).
        var sealed = StateSeal.Message()
        for column: Int32 in [1, 6, 5, 0] { stateRow.withRawColumn(column) { sealed.append($0) } }
        let storedSeal = stateRow.blob(7)
        let notBefore = stateRow.int64(8)
        state.refreshNotBefore = notBefore > 0 ? Date(unixMilliseconds: notBefore) : nil
        stateRow.reset()
        if let currentID {
            let sessionRow = try connection.cached(SessionRecord.selectByID)
            try sessionRow.bind([.text(currentID)])
            defer { sessionRow.reset() }
            guard try sessionRow.step() else {
                throw CorruptionReason(.invariantViolation, "the current session \(currentID) does not exist")
            }
            for column in SessionRecord.sealedColumnPositions { sessionRow.withRawColumn(column) { sealed.append($0) } }
            let row = try SessionRecord(reading: sessionRow)
            state.tokens = try row.openTokens(with: keys)
            state.current = row
        } else {
            sealed.appendAbsentSession()
        }
        if let mismatch = StateSeal.mismatch(sealed, stored: storedSeal, keys: keys) { throw mismatch }
        return state
    }
}
