import Foundation

extension Vault {
    /// Notices that another process wiped this vault (its database is gone) or replaced its
    /// database (a rekey, a wipe followed by a new sign-in) and reopens the vault in place
    /// through the key provider, so nothing is handed out or written from the old file.
    /// Subscribers to `events()` keep their streams: they see `.wiped(kind)` or `.signedOut` (or
    /// what else changed), then the events of the vault as it is now.
    /// - Returns: true when the vault was reopened (its state is current), false when the file
    ///   is still the one this vault has open.
    func reopenIfReplacedElsewhere() throws(VaultError) -> Bool {
        if connection != nil, !replacedElsewhere {
            let identity = FileIdentity.of(files.database)
            guard identity != openedFileIdentity else { return false }
            replacedElsewhere = true
            wipedElsewhere = identity == nil
            logger.notice("vault replaced by another process; reopening", metadata: ["vault.wiped": "\(wipedElsewhere)"])
        }
        guard replacedElsewhere else { return false }
        try reopen(wiped: wipedElsewhere ? nil : false)
        return true
    }

    /// Wipes this vault's files for `reason` and opens a fresh, empty vault in their place,
    /// keeping this `Vault` and its subscribers (who see `.wiped(kind)` first).
    ///
    /// Only the files the damage was found in are wiped (the reason's diagnosis, else the file
    /// this vault has open). When another process recovered or replaced them meanwhile, nothing
    /// is wiped: the vault reopens on what is there now and `.changedElsewhere` is thrown, for
    /// the caller to decide again.
    func recoverInPlace(from reason: CorruptionReason) throws(VaultError) {
        let diagnosed = reason.diagnosed ?? ownFilesDiagnosis()
        pollTask?.cancel()
        pollTask = nil
        dropConnection()
        replacedElsewhere = true
        wipedElsewhere = true
        do {
            try Vault.recover(at: files.database, keyProvider: keyProvider, reason: reason, diagnosed: diagnosed, now: clock())
        } catch {
            guard case .changedElsewhere = error else { throw error }
            // Failing, it stays marked replaced: the next call reopens, and reports what it finds.
            wipedElsewhere = false
            try? reopen(wiped: false)
            throw error
        }
        try reopen(wiped: nil)
    }

    /// Drops the connection to the old file and opens the one at the path now (creating an
    /// empty vault where a wipe left none). On failure the vault stays marked replaced: the
    /// next call tries again (the key provider may yield the new key later), and nothing is read
    /// from the old file meanwhile.
    /// - Parameter wiped: nil when the old file is known to be gone (a wipe), false otherwise.
    private func reopen(wiped: Bool?) throws(VaultError) {
        let before = state
        dropConnection()
        var opener = VaultOpener(files: files, keyProvider: keyProvider, now: clock(), create: true)
        opener.createsDirectories = false
        let opened = try opener.open()
        connection = opened.connection
        keys = opened.keys
        header = opened.header
        state = opened.state
        lastDataVersion = opened.state.dataVersion
        openedFileIdentity = FileIdentity.of(files.database)
        replacedElsewhere = false
        wipedElsewhere = false
        pendingActivity = nil
        if wiped == nil {
            if case .wipedAfterCorruption(let kind) = state.emptyReason, state.current == nil {
                emit(.wiped(kind))
            } else {
                emit(.wiped(nil))
            }
            if state.current != nil { emitDifferences(from: VaultState.emptied(before), to: state) }
        } else {
            emitDifferences(from: before, to: state)
        }
        if !subscribers.isEmpty { startWatchingIfNeeded() }
    }
}
