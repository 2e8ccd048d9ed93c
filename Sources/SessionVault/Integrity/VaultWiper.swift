/// The recovery wipe: crypto-shred, delete every vault file, make the deletions durable.
///
/// Order, chosen so a crash at any point leaves a state the next open classifies as missing or
/// corrupted, never as valid with half the data: (1) the tombstone is written first, so the
/// reason survives; (2) the key is destroyed; (3) sidecars and the header go, then the database
/// last: a database without its header is `headerDamaged` (corrupted, wiped again); (4) fsync
/// of the directory. Running it again after a crash finishes the job (idempotent). The suite
/// stops it after each step in turn and opens the remains (`WipeCrashTests`).
///
/// It wipes whatever it is asked to. Whether to ask is the caller's decision: the automatic
/// recovery in `ResumeManager` skips `wrongKey` (the file was never read and may be healthy; a
/// mistyped passphrase must not destroy it), while an explicit `Vault.recover` wipes any kind,
/// `futureSchema` included (an app cannot use a newer schema, and the vault is a cache of a
/// login, not the only copy of anything).
enum VaultWiper {
    static func wipe(_ files: VaultFiles, keys: (any KeyProvider)?, tombstone: Tombstone?) throws(VaultError) {
        do {
            if let tombstone { try tombstone.write(to: files.tombstone) }
        } catch {
            throw .io(error)
        }
        do {
            try keys?.destroyKey()
        } catch {
            throw .keyProvider(error)
        }
        do {
            for path in files.wipeOrder {
                try FileIO.removeIfPresent(path)
                try FileIO.removeTemporarySiblings(of: path)
            }
            if tombstone == nil { try FileIO.removeIfPresent(files.tombstone) }
            try FileIO.fsyncDirectory(files.directory)
        } catch {
            throw .io(error)
        }
    }
}
