import Foundation

extension Vault {
    /// Runs `body` in one immediate, durable transaction that also advances the generation, then
    /// re-reads the state and records the generation in the header.
    ///
    /// - Parameter apply: when given, the in-memory state is brought forward by this closure
    ///   (with the committed generation) instead of being read back from the file: the hot
    ///   rotate path knows exactly what it wrote. It falls back to a read when another process
    ///   committed since this one last looked, so nothing of theirs is missed.
    @discardableResult
    func write<T>(
        _ operation: String, apply: ((inout VaultState, UInt64) -> Void)? = nil,
        _ body: (Connection, Date) throws -> T
    ) throws(VaultError) -> T {
        let connection = try liveConnection()
        let now = clock()
        let result: T
        var committedGeneration: UInt64?
        do {
            result = try connection.transaction {
                // Inside the write lock: nobody else can commit until this transaction ends.
                let changedElsewhere = try apply != nil && (connection.scalarInt("PRAGMA data_version") ?? 0) != lastDataVersion
                let value = try body(connection, now)
                if let activity = pendingActivity, let id = state.current?.session.id {
                    try SessionRecord.raiseLastActive(of: id, to: activity.unixMilliseconds, in: connection)
                }
                try VaultStateRecord.advanceGeneration(lastWallClock: now.unixMilliseconds, in: connection)
                // Last: the seal covers what the body and the generation step wrote.
                guard try StateSeal.seal(connection, keys: keys) else { throw StateSeal.missingStateRow }
                if apply != nil && !changedElsewhere {
                    // A damaged (negative) value is not converted: the re-read below reports it.
                    committedGeneration = try VaultStateRecord.generation(in: connection).flatMap { UInt64(exactly: $0) }
                }
                return value
            }
        } catch {
            throw VaultError(underlying: error, files: files)
        }
        if let apply, let committedGeneration {
            apply(&state, committedGeneration)
            if let activity = pendingActivity {
                let lastActive = max(state.current?.session.lastActiveAt ?? activity, activity)
                state.current?.session.lastActiveAt = lastActive
            }
            state.lastWallClock = max(state.lastWallClock, now)
        } else {
            try reloadState(from: connection)
            lastDataVersion = state.dataVersion
        }
        do {
            try header.recordGeneration(state.generation)
        } catch {
            // The commit stands; a lagging header is repaired on the next open.
            logger.warning("header generation not recorded", metadata: ["vault.operation": "\(operation)", "error": "\(error)"])
        }
        GenerationWitness.store(vaultID: state.vaultID, generation: state.generation, keys: keys, in: keyProvider)
        return result
    }

    /// Re-reads the state row and current session (opening its tokens) after a change.
    func reloadState(from connection: Connection) throws(VaultError) {
        do {
            // Same guard as at open: SQLCipher 3 hands a page that fails its HMAC over as zeroes.
            state = try connection.readCheckingPageAuthentication { try VaultState.load(from: connection, keys: keys) }
        } catch {
            throw VaultError(underlying: error, files: files)
        }
    }
}
