import Foundation

extension Vault {
    /// Re-encrypts the vault under the root key of `newKeys`; afterwards the old key no longer
    /// opens it. Every sealed token is re-sealed under the new field key and fingerprinted with
    /// the new fingerprint key.
    ///
    /// Crash safety: the re-encrypted copy is built beside the database (`-rekey`) and synced;
    /// then the header switches to the new key check value with a "rekey pending" flag (durable);
    /// then the copy replaces the database by rename; then the flag is cleared. An open that finds
    /// the flag set finishes the rename (roll forward); one that finds a copy without the flag
    /// deletes it (the old key still rules). The old key's storage is left to its owner.
    ///
    /// Other processes: the whole rekey holds the structure lock exclusively, so no other
    /// process commits to the old file after it was copied (its writes wait, then find the new
    /// file and reopen through their key provider), and none writes the old header back.
    public func rekey(to newKeys: any KeyProvider) throws(VaultError) {
        try flushActivity()
        try reloadIfChangedElsewhere()
        let lock = try structureLockHandle()
        let taken: Bool
        do { taken = try lock.lock(within: Self.structureWaitSeconds) } catch { throw .io(error) }
        guard taken else { throw .unavailable(retryAfter: 1, detail: "another process is using the vault's files; rekey not started") }
        var holdsLock = true
        defer { if holdsLock { lock.unlock() } }
        guard FileIdentity.of(files.database) == openedFileIdentity else {
            throw .unavailable(retryAfter: 0.1, detail: "another process replaced the vault meanwhile; rekey not started")
        }
        let connection = try liveConnection()
        let root: RootKey
        // The new key's provider may be a keystore that is locked right now: "not now", like at open.
        do { root = try newKeys.rootKey(recorded: nil, create: true) } catch { throw VaultError(error, existingVault: false) }
        let fresh: VaultKeys
        do { fresh = try VaultKeys(root: root.bytes) } catch { throw .crypto(error) }
        guard fresh.keyCheckValue != keys.keyCheckValue else { throw .invalidArgument("the new key is the current key") }
        // A leftover copy is removed below: only when it is a file (a link or a directory
        // there was never ours).
        try VaultOwnership.checkSidecars(files)
        let copy = files.rekeyTemporary
        do {
            try FileIO.removeIfPresent(copy)
            // ATTACH opens with the main connection's flags, which do not include CREATE.
            try FileIO.createEmptyFile(copy)
        } catch {
            throw .io(error)
        }

        let generation = state.generation + 1
        do {
            try fresh.databaseRawKey.withUnsafeBytes { try connection.attach(path: copy, as: "rekeyed", rawKey: $0) }
            defer { try? connection.execute("DETACH DATABASE rekeyed") }
            // Every setting every open pins, not only the page size: an attached database takes
            // the library's defaults, which on SQLCipher 4.x are HMAC-SHA512 (3.x ignores the
            // names it does not know).
            try connection.execute(
                Connection.cipherSettings(
                    schema: "rekeyed", pageSize: VaultHeader.cipherPageSize,
                    kdfIterations: VaultHeader.kdfIterations))
            try connection.execute("SELECT sqlcipher_export('rekeyed')")
            try connection.transaction {
                try resealTokens(connection, into: fresh)
                try VaultStateRecord.setGeneration(Int64(generation), schema: "rekeyed", in: connection)
                guard try StateSeal.seal(connection, keys: fresh, schema: "rekeyed") else { throw StateSeal.missingStateRow }
            }
        } catch {
            try? FileIO.removeIfPresent(copy)
            throw VaultError(underlying: error, files: files)
        }
        do {
            // Before the switch point: the copy must open the way every later open will
            // (fresh connection, new key, pinned settings) and hold what was written.
            try checkCopyOpens(copy, keys: fresh, generation: generation)
        } catch {
            try? FileIO.removeIfPresent(copy)
            throw VaultError(underlying: error, files: files)
        }
        do {
            try FileIO.syncFile(copy)
            // Durable switch point: from here an open rolls forward to the new key.
            try header.write(
                VaultHeader(
                    generation: generation, derivation: root.derivation, keyCheckValue: fresh.keyCheckValue,
                    rekeyPending: true, keyIdentity: newKeys.identity), durable: true, signedWith: fresh)
        } catch {
            try? FileIO.removeIfPresent(copy)
            throw .io(error)
        }
        CrashPoint.rekeySwitched.reach()
        // The roll-forward an open would do, done here while no other process can touch the
        // files: the old file's log goes (everything in it is in the copy), the copy takes the
        // database's name, the pending flag is cleared.
        do {
            try files.promoteRekeyedCopy()
            try header.write(
                VaultHeader(
                    generation: generation, derivation: root.derivation, keyCheckValue: fresh.keyCheckValue, keyIdentity: newKeys.identity),
                durable: true, signedWith: fresh)
        } catch {
            // The header says "pending": the next open finishes the switch.
            dropConnection()
            replacedElsewhere = true
            keyProvider = newKeys
            throw .io(error)
        }
        dropConnection()
        lock.unlock()
        holdsLock = false
        let opened = try VaultOpener(files: files, keyProvider: newKeys, now: clock(), create: false).open()
        self.connection = opened.connection
        self.keys = opened.keys
        self.header = opened.header
        self.state = opened.state
        self.keyProvider = newKeys
        openedFileIdentity = FileIdentity.of(files.database)
        lastDataVersion = opened.state.dataVersion
        // Recorded in the new file, after the switch: the copy was made before it.
        try? write("rekeyed") { connection, now in
            try audit(connection, .rekeyed, sessionID: state.current?.session.id, fingerprint: nil, reason: nil, at: now)
        }
    }

    /// Opens the re-encrypted copy with a connection of its own, exactly as `VaultOpener` will.
    private func checkCopyOpens(_ path: String, keys: VaultKeys, generation: UInt64) throws {
        let check = try Connection.keyed(path, keys: keys, readOnly: true)
        guard try VaultStateRecord.generation(in: check) == Int64(generation) else {
            throw VaultError.internalFault("the re-encrypted copy does not read back as written; rekey abandoned")
        }
    }

    /// Re-seals every stored token (and proof key) of the attached copy under the new keys.
    private func resealTokens(_ connection: Connection, into fresh: VaultKeys) throws {
        var resealed: [SessionRecord] = []
        for record in try SessionRecord.all(in: connection, schema: "rekeyed") {
            let tokens = try record.openTokens(with: keys)
            var rekeyed = record.withTokens(
                SealedTokens(
                    refresh: tokens.refresh, access: tokens.access, sessionID: record.session.id,
                    tokenVersion: record.session.tokenVersion, keys: fresh))
            // The proof key stays the session's (the server bound its tokens to it): re-sealed,
            // never replaced. One whose seal does not open is lost already (`currentProofKey`):
            // its bytes are kept as they are, not a reason to abandon the rekey.
            if let proofKey = try? record.openProofKey(with: keys) {
                rekeyed.sealedProofKey = SessionRecord.sealProofKey(proofKey, sessionID: record.session.id, keys: fresh)
            }
            // The ID token too (an end-session hint); one that does not open stays as it is.
            if let idToken = record.openIDToken(with: keys) {
                rekeyed.sealedIDToken = SessionRecord.sealIDToken(idToken, sessionID: record.session.id, keys: fresh)
            }
            resealed.append(rekeyed)
        }
        for record in resealed {
            _ = try record.update(SessionRecord.tokenColumns + [.proofKey, .idToken], in: connection, schema: "rekeyed")
        }
    }
}
