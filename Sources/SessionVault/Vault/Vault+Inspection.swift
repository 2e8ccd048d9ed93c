import Foundation

extension Vault {
    /// Reads everything a support engineer may see about this vault (see `VaultInspection`).
    /// Changes nothing: the paths are decided, not acted on.
    ///
    /// - Parameters:
    ///   - now: the time to decide each session's path for; the vault's clock by default.
    ///   - eventLimit: how many of the latest audit events to include.
    package func inspect(now: Date? = nil, eventLimit: Int = 10) throws(VaultError) -> VaultInspection {
        guard eventLimit >= 0 else { throw .invalidArgument("eventLimit must not be negative") }
        try reloadIfChangedElsewhere()
        let connection = try liveConnection()
        let at = now ?? clock()
        do {
            let cipherVersion = try connection.cipherVersion() ?? ""
            let pageSize = Int(try connection.scalarInt("PRAGMA cipher_page_size") ?? 0)
            let pageCount = Int(try connection.scalarInt("PRAGMA page_count") ?? 0)
            let journalMode = try connection.scalarText("PRAGMA journal_mode") ?? ""
            let migrations = try Migrator().applied(in: connection)
            let stateRow = currentStateRow
            let sessions = try SessionRecord.all(in: connection, orderedByIssue: true).map { row in
                let snapshot = VaultSnapshot.session(
                    row.session, lastWallClock: stateRow.lastWallClock,
                    serverClockOffset: stateRow.serverClockOffset)
                return VaultInspection.SessionEntry(
                    session: row.session, isCurrent: row.session.id == stateRow.currentSessionID,
                    path: ResumeDecision.decide(snapshot, now: at, policy: policy))
            }
            return VaultInspection(
                cipherVersion: cipherVersion, sqliteVersion: Connection.sqliteVersion, pageSize: pageSize, pageCount: pageCount,
                journalMode: journalMode, files: VaultInspection.FileSizes(files: files),
                header: VaultInspection.HeaderSummary(
                    generation: header.current.generation, keyDerivation: header.current.derivation,
                    rekeyPending: header.current.rekeyPending, keyIdentity: header.current.keyIdentity.map { "\($0)" }),
                schemaVersion: migrations.map(\.version).max() ?? 0, migrations: migrations, sessions: sessions,
                state: stateRow, recentEvents: try AuditLog.recent(eventLimit, in: connection),
                tombstone: Vault.tombstone(at: files.database), inspectedAt: at, libraryVersion: SessionVaultVersion.current)
        } catch {
            throw VaultError(underlying: error, files: files)
        }
    }

    /// The state row as the vault already holds it (read at open, kept current by every write
    /// and by `reloadIfChangedElsewhere`): no second query of the same row.
    private var currentStateRow: VaultInspection.StateRow {
        VaultInspection.StateRow(
            currentSessionID: state.current?.session.id, generation: state.generation, lastWallClock: state.lastWallClock,
            emptyReason: state.current == nil ? state.emptyReason : nil,
            serverClockOffset: state.serverClockOffset, biometricPreference: state.biometricPreference)
    }
}
