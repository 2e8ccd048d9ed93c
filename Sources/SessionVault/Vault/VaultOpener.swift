import Foundation

/// The open procedure: everything between a path and a trusted, current `VaultState`.
///
/// The cheap check run on every open: header and key check value, the cipher guard, page 1 and
/// the schema (migration history), the state row with its generation against the header's, the
/// current session row and its sealed tokens. Failures come out classified: `corrupted` with a
/// taxonomy reason, `unavailable`, or an operational error.
struct VaultOpener {
    let files: VaultFiles
    let keyProvider: any KeyProvider
    let now: Date
    let create: Bool
    let migrator = Migrator()
    let busyTimeoutMilliseconds: Int32 = 2_000

    struct Opened {
        let connection: Connection
        let keys: VaultKeys
        let header: HeaderFile
        let state: VaultState
    }

    func open() throws(VaultError) -> Opened {
        var header = try HeaderFile.read(at: files.header)
        if let pending = header, pending.rekeyPending { header = try finishRekey(pending) }
        // A rekey that crashed before its header switch leaves a copy nobody will use.
        if header?.rekeyPending != true { try? FileIO.removeIfPresent(files.rekeyTemporary) }

        let databaseSize = FileIO.size(files.database)
        guard let databaseSize else {
            guard create else { throw .corrupted(CorruptionReason(.keyMissing, "no vault at \(files.database)")) }
            return try createVault()
        }
        guard let header else {
            throw .corrupted(CorruptionReason(.headerDamaged, "the database exists but its header \(files.header) is missing"))
        }
        if databaseSize == 0 { throw .corrupted(CorruptionReason(.truncated, "the database file is empty")) }
        if databaseSize % Int64(VaultHeader.cipherPageSize) != 0 {
            throw .corrupted(CorruptionReason(.truncated, "the database is \(databaseSize) bytes, not a whole number of \(VaultHeader.cipherPageSize)-byte pages"))
        }

        let root: RootKey
        do {
            root = try keyProvider.rootKey(recorded: header.derivation, create: false)
        } catch {
            switch error {
            case .missing(let detail): throw .corrupted(CorruptionReason(.keyMissing, detail))
            case .invalid(let detail): throw .corrupted(CorruptionReason(.keyMissing, "the key is damaged: \(detail)"))
            case .unavailable(let detail, let retryAfter): throw .unavailable(retryAfter: retryAfter, detail: detail)
            default: throw .keyProvider(error)
            }
        }
        let keys: VaultKeys
        do { keys = try VaultKeys(root: root.bytes) } catch { throw .crypto(error) }
        guard keys.keyCheckValue == header.keyCheckValue else {
            throw .corrupted(CorruptionReason(.wrongKey, "the key does not match this vault's key check value; the file itself was not read"))
        }

        let connection = try connect(keys: keys, create: false)
        let headerFile: HeaderFile
        do { headerFile = try HeaderFile(path: files.header, header: header) } catch { throw .io(error) }
        let state = try load(connection, keys: keys)
        if state.generation < header.generation {
            let walDamaged = (FileIO.size(files.wal) ?? 0) > 0
            throw .corrupted(CorruptionReason(walDamaged ? .damagedWAL : .rollback,
                "the database is at generation \(state.generation) but the header saw \(header.generation)"
                + (walDamaged ? "; the write-ahead log lost committed frames" : ": an older copy was put back")))
        }
        // The header lags after a crash between commit and header write: catch it up.
        do { try headerFile.recordGeneration(state.generation) } catch { throw .io(error) }
        return Opened(connection: connection, keys: keys, header: headerFile, state: state)
    }

    /// A new vault: key, then a durable header, then the database. A crash after the header
    /// leaves a header without a database, which the next open replaces.
    private func createVault() throws(VaultError) -> Opened {
        for stale in [files.header, files.wal, files.sharedMemory, files.journal] {
            do { try FileIO.removeIfPresent(stale) } catch { throw .io(error) }
        }
        let root: RootKey
        do {
            root = try keyProvider.rootKey(recorded: nil, create: true)
        } catch {
            if case .unavailable(let detail, let retryAfter) = error { throw .unavailable(retryAfter: retryAfter, detail: detail) }
            throw .keyProvider(error)
        }
        let keys: VaultKeys
        do { keys = try VaultKeys(root: root.bytes) } catch { throw .crypto(error) }
        let headerFile: HeaderFile
        do {
            headerFile = try HeaderFile.create(at: files.header, header: VaultHeader(generation: 1, derivation: root.derivation, keyCheckValue: keys.keyCheckValue))
        } catch {
            throw .io(error)
        }
        let connection = try connect(keys: keys, create: true)
        do {
            if let tombstone = Tombstone.read(at: files.tombstone) {
                try connection.run("UPDATE vault_state SET empty_reason = ? WHERE singleton = 1",
                                   [.text(MissingReason.wipedAfterCorruption(tombstone.reason).code)])
            }
        } catch {
            throw .database(error)
        }
        let state = try load(connection, keys: keys)
        return Opened(connection: connection, keys: keys, header: headerFile, state: state)
    }

    /// Opens, keys and checks a connection, then brings the schema up to date.
    func connect(keys: VaultKeys, create: Bool) throws(VaultError) -> Connection {
        do {
            let connection = try Connection(path: files.database, create: create)
            try keys.databaseRawKey.withUnsafeBytes { raw in try connection.key(raw) }
            try connection.pinCipherSettings(pageSize: VaultHeader.cipherPageSize, kdfIterations: VaultHeader.kdfIterations)
            guard try connection.cipherVersion() != nil else { throw VaultError.notSQLCipher }
            // The first read of page 1: a wrong key or a damaged file fails here (SQLITE_NOTADB).
            _ = try connection.scalarInt("SELECT count(*) FROM sqlite_master")
            try connection.applyVaultPragmas(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            try migrator.migrate(connection, now: now.unixMilliseconds)
            return connection
        } catch let error as VaultError {
            throw error
        } catch let error as SQLiteError {
            throw Self.classify(error, files: files)
        } catch let error as MigrationError {
            switch error {
            case .checksumMismatch: throw .corrupted(CorruptionReason(.migrationChecksumMismatch, error.description))
            case .futureSchema: throw .corrupted(CorruptionReason(.futureSchema, error.description))
            case .malformedHistory: throw .corrupted(CorruptionReason(.structuralDamage, error.description))
            case .sqlite(let sqliteError): throw Self.classify(sqliteError, files: files)
            }
        } catch {
            throw .invalidArgument("\(error)")
        }
    }

    private func load(_ connection: Connection, keys: VaultKeys) throws(VaultError) -> VaultState {
        do {
            return try VaultState.load(from: connection, keys: keys)
        } catch let reason as CorruptionReason {
            throw .corrupted(reason)
        } catch let error as SQLiteError {
            throw Self.classify(error, files: files)
        } catch {
            throw .invalidArgument("\(error)")
        }
    }

    /// Turns an SQLite failure during open or read into a taxonomy entry where it is one.
    static func classify(_ error: SQLiteError, files: VaultFiles) -> VaultError {
        let walHasContent = (FileIO.size(files.wal) ?? 0) > 0
        switch error.code {
        case .notADatabase:
            return .corrupted(CorruptionReason(walHasContent ? .damagedWAL : .notADatabase, "\(error.message) (a page failed authentication or the file is not a database)"))
        case .corrupt:
            return .corrupted(CorruptionReason(walHasContent ? .damagedWAL : .structuralDamage, error.message))
        case .busy, .locked:
            return .unavailable(retryAfter: 0.5, detail: "the database is busy in another process")
        case .ioError where error.extendedCode.rawValue == 522: // SQLITE_IOERR_SHORT_READ
            return .corrupted(CorruptionReason(.truncated, error.message))
        case .cantOpen, .permission:
            return .unavailable(retryAfter: 1, detail: "the database cannot be opened now: \(error.message)")
        default:
            return .database(error)
        }
    }

    /// Completes a rekey that stopped after its header switch: the re-encrypted copy replaces
    /// the database (roll forward), then the pending flag is cleared.
    private func finishRekey(_ header: VaultHeader) throws(VaultError) -> VaultHeader {
        do {
            if FileIO.exists(files.rekeyTemporary) {
                for sidecar in [files.wal, files.sharedMemory] { try FileIO.removeIfPresent(sidecar) }
                try FileIO.valueOrErrno(rename(files.rekeyTemporary, files.database), "rename", files.database)
                try FileIO.fsyncDirectory(files.directory)
            }
            var done = header
            done.rekeyPending = false
            let file = try HeaderFile(path: files.header, header: header)
            try file.write(done, durable: true)
            return file.current
        } catch {
            throw .io(error)
        }
    }
}
