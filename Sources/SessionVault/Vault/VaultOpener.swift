import Foundation

/// The open procedure: everything between a path and a trusted, current `VaultState`.
///
/// The cheap check run on every open: header and key check value, the cipher guard, page 1 and
/// the schema (migration history), the state row with its generation against the header's, the
/// current session row and its sealed tokens, read in one transaction that ends with a probe for
/// pages SQLCipher refused. Nothing here scans the file: that is `verify()`. Failures come out
/// classified: `corrupted` with a taxonomy reason, `unavailable`, or an operational error; only
/// the failure path looks closer (`CorruptionDiagnosis`) to name the damage precisely.
package struct VaultOpener {
    let files: VaultFiles
    let keyProvider: any KeyProvider
    let now: Date
    let create: Bool
    /// Whether a missing directory on the way to the vault is made (0700). The app's open does;
    /// a reopen after another process wiped or replaced the file does not: a directory gone
    /// since the vault was open was removed on purpose (the app deleted its data), and making it
    /// again from a background poll would bring back what was deleted.
    var createsDirectories = true

    package init(files: VaultFiles, keyProvider: any KeyProvider, now: Date, create: Bool) {
        self.files = files
        self.keyProvider = keyProvider
        self.now = now
        self.create = create
    }
    let migrator = Migrator()
    /// How long any statement waits for another process's lock before SQLITE_BUSY: the budget
    /// within which "busy" is waited out inside the library instead of reaching a caller.
    static let busyTimeoutMilliseconds: Int32 = 5_000
    var busyTimeoutMilliseconds: Int32 { Self.busyTimeoutMilliseconds }

    package struct Opened {
        let connection: Connection
        let keys: VaultKeys
        let header: HeaderFile
        package let state: VaultState
    }

    package func open() throws(VaultError) -> Opened {
        // A first launch may find the app's directory not made yet (iOS Application Support):
        // made here, before the lock file inside it, rather than unavailable on every launch.
        // Only when creating: a look at a vault (tools, dry runs) never writes.
        if create && createsDirectories { try files.createMissingDirectories() }
        // An ordinary open shares the structure lock with other opens and with writes, so
        // several processes opening at once do not queue behind each other. Creating the vault
        // or finishing a rekey takes it exclusively: one process at a time, and none ever reads
        // another's half-made files (an app and its extension starting on an empty directory).
        do {
            let shared = try VaultOwnership.structureLock(files, shared: true)
            defer { shared.unlock() }
            if let opened = try diagnosing({ () throws(VaultError) in try openHoldingStructureLock(exclusive: false) }) { return opened }
        }
        let lock = try VaultOwnership.structureLock(files)
        defer { lock.unlock() }
        guard let opened = try diagnosing({ () throws(VaultError) in try openHoldingStructureLock(exclusive: true) }) else { throw .closed }
        return opened
    }

    /// Runs `body` and, when it finds the vault corrupted, records in the reason which files
    /// it found damaged (`DiagnosedFiles`), still under the structure lock: a recovery wipe given
    /// that reason deletes those files only, never a vault another process has put there since.
    private func diagnosing<T>(_ body: () throws(VaultError) -> T) throws(VaultError) -> T {
        do {
            return try body()
        } catch {
            guard case .corrupted(var reason) = error, reason.diagnosed == nil else { throw error }
            reason.diagnosed = DiagnosedFiles.capture(files, keyFilePath: DiagnosedFiles.keyFilePath(of: keyProvider))
            throw .corrupted(reason)
        }
    }

    /// - Parameter exclusive: whether the structure lock is held exclusively; when it is not and
    ///   the open needs to create the vault or finish a rekey, nil (before anything is written):
    ///   take it exclusively and call again. The files are read once on the ordinary launch.
    private func openHoldingStructureLock(exclusive: Bool) throws(VaultError) -> Opened? {
        var header = try HeaderFile.read(at: files.header)
        // Before anything is written (a rekey finished, a leftover removed, a vault created):
        // the files at these paths must be ours.
        let databaseStatus = try VaultOwnership.databaseStatus(files)
        try VaultOwnership.checkSidecars(files)
        if !exclusive && (databaseStatus == nil || header?.rekeyPending == true) { return nil }
        // A pending rekey is finished under the new key (the one the pending header names), so
        // that the finished header is signed by it; a provider without that key finishes nothing.
        var unlocked: VaultKeys?
        if let pending = header, pending.rekeyPending {
            let keys = try unlock(pending)
            header = try finishRekey(pending, keys: keys)
            unlocked = keys
        }
        // A rekey that crashed before its header switch leaves a copy nobody will use.
        if header?.rekeyPending != true { try? FileIO.removeIfPresent(files.rekeyTemporary) }

        guard let databaseStatus else {
            guard create else { throw .corrupted(CorruptionReason(.keyMissing, "no vault at \(files.database)")) }
            return try createVault()
        }
        let databaseSize = Int64(databaseStatus.st_size)
        guard let header else {
            throw .misconfigured(
                "\(files.database) exists but has no SessionVault header beside it (\(files.header)); it cannot be proven to be this vault's database")
        }
        // Cheap truncation checks on the file size alone. A file cut at a page boundary passes
        // them; page 1 then records more pages than the file holds, which the first read
        // reports and `CorruptionDiagnosis.truncation` names.
        if databaseSize == 0 { throw .corrupted(CorruptionReason(.truncated, "the database file is empty")) }
        if databaseSize % Int64(VaultHeader.cipherPageSize) != 0 {
            throw .corrupted(
                CorruptionReason(.truncated, "the database is \(databaseSize) bytes, not a whole number of \(VaultHeader.cipherPageSize)-byte pages"))
        }

        let keys: VaultKeys
        if let unlocked { keys = unlocked } else { keys = try unlock(header) }
        // Read before the database, like the header: another process writes it only after its
        // commit, so what is read here can only be behind the snapshot the open reads next.
        let witnessed = witnessedGeneration(keys: keys)
        var connection: Connection? = try connectWaitingOutLocks(keys: keys)
        do {
            if let live = connection { return try finishOpening(live, header: header, keys: keys, witnessed: witnessed) }
        } catch {
            // Closing normally would checkpoint the write-ahead log into the database and delete
            // it: the evidence that tells a damaged log from a rollback would be gone for the
            // next open and for the CLI.
            if case .corrupted = error { CorruptionDiagnosis(files: files, keys: keys).closePreservingEvidence(&connection) }
            throw error
        }
        throw .closed
    }

    /// The root key from the provider, checked against the header's key check value.
    func unlock(_ header: VaultHeader) throws(VaultError) -> VaultKeys {
        let root: RootKey
        do {
            root = try keyProvider.rootKey(recorded: header.derivation, create: false)
        } catch {
            throw KeyLoss.judge(error, header: header, provider: keyProvider, files: files)
        }
        let keys: VaultKeys
        do { keys = try VaultKeys(root: root.bytes) } catch { throw .crypto(error) }
        guard keys.keyCheckValue == header.keyCheckValue else {
            // Reported as corrupted(.wrongKey) so the app takes the login path, but the file
            // itself was not read and may be healthy: ResumeManager's automatic recovery does
            // not wipe on this kind (a mistyped passphrase must not destroy a good vault). An
            // explicit `Vault.recover` does wipe it.
            throw .corrupted(CorruptionReason(.wrongKey, "the key does not match this vault's key check value; the file itself was not read"))
        }
        return keys
    }

    /// `unlock` for a vault whose header is on disk, for tools that verify after a failed open.
    func unlock() throws(VaultError) -> (keys: VaultKeys, header: VaultHeader) {
        guard let header = try HeaderFile.read(at: files.header) else {
            throw .corrupted(CorruptionReason(.headerDamaged, "the header \(files.header) is missing"))
        }
        return (try unlock(header), header)
    }

    /// The header's keyed tag (see `VaultHeader`). An unsigned header is one written before
    /// headers were signed: it is signed here, durably, before the migration that seals the
    /// database runs, so a sealed database never sits beside an unsigned header of ours.
    private func checkSignature(of header: VaultHeader, connection: Connection, keys: VaultKeys) throws(VaultError) {
        switch header.authenticity(with: keys) {
        case .authentic:
            return
        case .forged:
            throw .corrupted(CorruptionReason(.headerDamaged, "the header's keyed tag does not match its fields: it was edited without the key"))
        case .unsigned:
            let history: [AppliedMigration]
            do { history = try migrator.applied(in: connection) } catch { throw .corrupted(CorruptionReason(.structuralDamage, error.description)) }
            if history.contains(where: { $0.version >= StateSeal.migrationVersion }) {
                throw .corrupted(CorruptionReason(.headerDamaged, "the header is unsigned beside a sealed database: it was replaced or edited"))
            }
            do {
                try HeaderFile(path: files.header, header: header, keys: keys).write(header, durable: true)
            } catch {
                throw .io(error)
            }
        }
    }

    /// The generation the key provider kept (see `GenerationWitness`), when it holds one of
    /// this key. Ahead of the database, it means the vault's files, header included, were put
    /// back from an older copy. Only read here: writes keep it current (an open writes nothing
    /// beside the key, so a forensic open of a copy leaves the original's record alone).
    private func witnessedGeneration(keys: VaultKeys) -> GenerationWitness? {
        ((try? keyProvider.generationRecord()) ?? nil).flatMap { GenerationWitness.decode($0, keys: keys) }
    }

    /// Schema, state and generation checks on a connection whose first read succeeded.
    private func finishOpening(_ connection: Connection, header: VaultHeader, keys: VaultKeys, witnessed: GenerationWitness?) throws(VaultError) -> Opened {
        try checkSignature(of: header, connection: connection, keys: keys)
        try migrate(connection, keys: keys)
        let state = try load(connection, keys: keys)
        if state.generation < header.generation {
            // The header records a generation only after the commit that made it is durable, so
            // a header ahead of the database is never a crash between the two writes: either an
            // older copy of the file was put back, or the write-ahead log lost committed frames
            // (then the log is still there, with frames SQLite could not use).
            let walDamaged = CorruptionDiagnosis.walHasFrames(files)
            throw .corrupted(
                CorruptionReason(
                    walDamaged ? .damagedWAL : .rollback,
                    "the database is at generation \(state.generation) but the header saw \(header.generation)"
                        + (walDamaged ? "; the write-ahead log lost committed frames" : ": an older copy was put back")))
        }
        if let witnessed, witnessed.vaultID == state.vaultID, witnessed.generation > state.generation {
            throw .corrupted(
                CorruptionReason(
                    .rollback,
                    "the key provider recorded generation \(witnessed.generation) but the database and its header are at \(state.generation): the vault's files were put back from an older copy"
                ))
        }
        let headerFile: HeaderFile
        do { headerFile = try HeaderFile(path: files.header, header: header, keys: keys) } catch { throw .io(error) }
        // The header lags after a crash between commit and header write: catch it up.
        do { try headerFile.recordGeneration(state.generation) } catch { throw .io(error) }
        // The key that opened the vault is the one it names from now on (a vault written before
        // identities were recorded gains the record here; a key file renamed by the app is
        // followed). The read-only tools open a private copy, so this never touches an original.
        do { try headerFile.recordKeyIdentity(keyProvider.identity) } catch { throw .io(error) }
        return Opened(connection: connection, keys: keys, header: headerFile, state: state)
    }

    /// A new vault: key, then a durable header, then the database, built aside and published.
    ///
    /// The database is built under a temporary name (rollback journal, migrated, fsynced) and
    /// published with `link`, which refuses an existing target: the real name only ever holds a
    /// complete database, so a crash mid-creation leaves a header without a database (the next
    /// open creates again) and never a half-made file that a later open would call truncated.
    /// The caller holds the structure lock, so no other process is creating at the same time.
    private func createVault() throws(VaultError) -> Opened {
        // A key file that a wipe overwrote with zeros and was stopped before it could unlink
        // stands where the new key goes. Beside a wipe's tombstone, at the key the header (if
        // any) names, it is the shredded key of this vault's predecessor, and goes; otherwise it
        // is not proven ours and stays (the provider then refuses to create over it).
        let recorded = (try? HeaderFile.read(at: files.header))?.flatMap { $0.keyIdentity }
        let namedHere = recorded.map { $0.names(keyProvider.identity) } ?? true
        if FileIO.exists(files.tombstone), namedHere, let keyFile = keyProvider as? KeyFileProvider {
            do { _ = try keyFile.removeShreddedKey() } catch { throw VaultError(error, existingVault: false) }
        }
        // No database exists: these are leftovers of an earlier vault or of a creation cut
        // short. A stale log would be applied to the new file, so they go before it is made.
        for stale in [files.header, files.wal, files.sharedMemory, files.journal, files.creating, files.creatingJournal] {
            do { try FileIO.removeIfPresent(stale) } catch { throw .io(error) }
        }
        let root: RootKey
        do {
            root = try keyProvider.rootKey(recorded: nil, create: true)
        } catch {
            throw VaultError(error, existingVault: false)
        }
        let keys: VaultKeys
        do { keys = try VaultKeys(root: root.bytes) } catch { throw .crypto(error) }
        let headerFile: HeaderFile
        do {
            headerFile = try HeaderFile.create(
                at: files.header,
                header: VaultHeader(
                    generation: 1, derivation: root.derivation, keyCheckValue: keys.keyCheckValue, keyIdentity: keyProvider.identity),
                keys: keys)
        } catch {
            throw .io(error)
        }
        do {
            try buildAside(keys: keys)
            try FileIO.valueOrErrno(link(files.creating, files.database), "link", files.database)
            try FileIO.removeIfPresent(files.creating)
            try FileIO.fsyncDirectory(files.directory)
        } catch {
            try? FileIO.removeIfPresent(files.creating)
            try? FileIO.removeIfPresent(files.creatingJournal)
            switch error {
            case let error as VaultError: throw error
            case let error as FileIOError where error.errno == EEXIST:
                // Only a writer that does not take the structure lock (an older release) can get
                // here: its file is left alone.
                throw .unavailable(retryAfter: 0.5, detail: "another process created the database meanwhile")
            case let error as FileIOError: throw .io(error)
            default: throw .internalFault("creating the vault: \(error)")
            }
        }
        let connection = try connectWaitingOutLocks(keys: keys)
        let state = try load(connection, keys: keys)
        return Opened(connection: connection, keys: keys, header: headerFile, state: state)
    }

    /// Writes the complete new database to `files.creating`: keyed, pinned, migrated, the
    /// tombstone's reason recorded, closed and fsynced.
    private func buildAside(keys: VaultKeys) throws(VaultError) {
        // A fresh file has no damage to diagnose: an engine failure is a full disk or the
        // engine's own error.
        func failure(_ error: SQLiteError) -> VaultError { error.isOutOfSpace ? .storageFull(error.description) : .database(error.description) }
        // Created here at 0600 (not by SQLite, at 0644 less the umask): SQLite gives the
        // journal, -wal and -shm the database file's mode, so every file stays private.
        do { try FileIO.createEmptyFile(files.creating) } catch { throw .io(error) }
        let connection: Connection
        let isSQLCipher: Bool
        do {
            connection = try Connection.keyed(files.creating, keys: keys, create: true)
            isSQLCipher = try connection.cipherVersion() != nil
        } catch {
            throw failure(error)
        }
        guard isSQLCipher else { throw .notSQLCipher }
        do {
            // Rollback journal while building: the finished file is complete on its own, with no
            // log beside it under the temporary name. The first real open switches it to WAL.
            try connection.execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;")
        } catch {
            throw failure(error)
        }
        try migrate(connection, keys: keys)
        // Only a note for the `missing` reason: an unreadable one must not stop the create.
        if let tombstone = try? Tombstone.read(at: files.tombstone) {
            do {
                try VaultStateRecord.setEmptyReason(MissingReason.wipedAfterCorruption(tombstone.reason).code, in: connection)
            } catch {
                throw failure(error)
            }
        }
        // Closed before the sync, so that the file synced is the finished one.
        _ = connection.close()
        do { try FileIO.syncFile(files.creating) } catch { throw .io(error) }
    }

    /// `connect`, retried for up to the busy timeout while it answers `unavailable`.
    ///
    /// Why: the first read runs before the connection's busy timeout is set, and a process
    /// opening a vault that another is committing to or checkpointing meets a lock there
    /// (SQLITE_BUSY on `SELECT count(*) FROM sqlite_master`): the processes of a simultaneous
    /// launch then answered "unavailable" instead of waiting a few milliseconds, as every later
    /// statement does. Bounded like the busy timeout; anything but `unavailable` is not retried.
    private func connectWaitingOutLocks(keys: VaultKeys) throws(VaultError) -> Connection {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(busyTimeoutMilliseconds) * 1_000_000
        var pause: UInt32 = 1_000
        while true {
            do {
                return try connect(keys: keys, create: false)
            } catch {
                guard case .unavailable = error, DispatchTime.now().uptimeNanoseconds < deadline else { throw error }
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
    }

    /// Opens, keys and checks a connection: the cipher guard, then the first read of page 1.
    func connect(keys: VaultKeys, create: Bool) throws(VaultError) -> Connection {
        // Held only as an optional, so that the failure path below can drop the last reference
        // itself (see there).
        var opened: Connection?
        do {
            // The busy timeout before the first statement: keying and the first read of page 1
            // can meet another process's lock (a writer's checkpoint, a log recovery) and must
            // wait, not fail. Nothing is read yet, so a failure here closes normally.
            opened = try Connection.keyed(files.database, keys: keys, create: create, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
            throw CorruptionDiagnosis.classify(error, files: files)
        }
        let failure: VaultError
        do throws(SQLiteError) {
            if let connection = opened {
                if try connection.cipherVersion() != nil {
                    // The first read of page 1: a wrong key or a damaged file fails here (SQLITE_NOTADB).
                    _ = try connection.scalarInt("SELECT count(*) FROM sqlite_master")
                    try connection.applyVaultPragmas(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
                    return connection
                }
                failure = .notSQLCipher
            } else {
                failure = .closed
            }
        } catch {
            failure = CorruptionDiagnosis(files: files, keys: keys).classify(error)
        }
        // A connection that failed here has opened the write-ahead log (SQLite does so before it
        // reads page 1), and closing it normally, as the last connection, would checkpoint: the
        // log of a damaged vault would be folded into its main file and deleted, destroying the
        // evidence the next open and the CLI read (and a damaged page 1 could be overwritten by
        // the log's copy, so the next open would call the vault healthy). Found by the vault-open
        // fuzz target; FirstReadEvidenceTests.
        CorruptionDiagnosis(files: files, keys: keys).closePreservingEvidence(&opened)
        throw failure
    }

    /// Checks the recorded migrations against the shipped ones, then applies the pending ones.
    func migrate(_ connection: Connection, keys: VaultKeys) throws(VaultError) {
        do {
            try migrator.migrate(connection, now: now.unixMilliseconds) { (version, connection) throws(MigrationError) in
                // Migration 6 introduces the state seal: the state it finds is sealed in the same
                // transaction, so no sealed schema ever holds an unsealed state.
                guard version == StateSeal.migrationVersion else { return }
                let sealed: Bool
                do throws(SQLiteError) { sealed = try StateSeal.seal(connection, keys: keys, assigningID: true) } catch { throw .sqlite(error) }
                if !sealed { throw .completionFailed(version: version, detail: StateSeal.missingStateRow.detail) }
            }
        } catch {
            throw VaultError(underlying: error, files: files, diagnosis: CorruptionDiagnosis(files: files, keys: keys))
        }
    }

    /// Reads the state row and the current session in one read transaction that ends with a
    /// check that no page was handed over zeroed (see `readCheckingPageAuthentication`).
    private func load(_ connection: Connection, keys: VaultKeys) throws(VaultError) -> VaultState {
        do {
            return try connection.readCheckingPageAuthentication { try VaultState.load(from: connection, keys: keys) }
        } catch {
            throw VaultError(underlying: error, files: files, diagnosis: CorruptionDiagnosis(files: files, keys: keys))
        }
    }
}

extension VaultOpener {
    /// Completes a rekey that stopped after its header switch: the re-encrypted copy replaces
    /// the database (roll forward), then the pending flag is cleared.
    func finishRekey(_ header: VaultHeader, keys: VaultKeys) throws(VaultError) -> VaultHeader {
        do {
            if FileIO.exists(files.rekeyTemporary) { try files.promoteRekeyedCopy() }
            var done = header
            done.rekeyPending = false
            let file = try HeaderFile(path: files.header, header: header, keys: keys)
            try file.write(done, durable: true)
            return file.current
        } catch {
            throw .io(error)
        }
    }
}
