import Foundation

/// What the vault holds right now, as read at open and kept current by every write.
package struct VaultState {
    var current: SessionRecord?
    package var tokens: OpenedTokens
    var generation: UInt64
    var lastWallClock: Date
    var emptyReason: MissingReason
    var serverClockOffset: TimeInterval
    var biometricPreference: Bool
    /// No refresh is sent before this local time: a server's 429 `retry_after`, kept for every
    /// process (migration 7). Nil: none.
    var refreshNotBefore: Date? = nil
    /// The wait the server asked for with `refreshNotBefore` (migration 9); nil: unknown.
    var refreshDeferredFor: TimeInterval? = nil
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
        empty.tokens = OpenedTokens()
        return empty
    }

    package var snapshot: VaultSnapshot {
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
        // The seal's message, from the bytes the two rows are read from (see `StateSeal`).
        var sealed = StateSeal.Message()
        guard let row = try VaultStateRecord.read(from: connection, sealing: &sealed) else { throw StateSeal.missingStateRow }
        let currentID = row.currentSessionID
        guard row.generation > 0 else { throw CorruptionReason(.invariantViolation, "generation \(row.generation) is not positive") }
        var state = VaultState(
            current: nil, tokens: OpenedTokens(), generation: UInt64(row.generation),
            lastWallClock: Date(unixMilliseconds: row.lastWallClock),
            emptyReason: MissingReason(code: row.emptyReason),
            serverClockOffset: Double(row.serverClockOffset) / 1000,
            biometricPreference: row.biometricPreference,
            vaultID: row.vaultID,
            dataVersion: dataVersion)
        let storedSeal = row.stateMAC
        state.refreshNotBefore = row.refreshNotBefore > 0 ? Date(unixMilliseconds: row.refreshNotBefore) : nil
        state.refreshDeferredFor = row.refreshDeferredFor > 0 ? Double(row.refreshDeferredFor) / 1000 : nil
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
