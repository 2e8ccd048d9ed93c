import Foundation

/// The recovery wipe: crypto-shred, delete every vault file, make the deletions durable.
///
/// Order, chosen so a crash at any point leaves a state the next open classifies as missing or
/// corrupted, never as valid with half the data: (1) the tombstone is written first, so the
/// reason survives; (2) the key is destroyed; (3) sidecars and the database go, then the header
/// last (a header whose key is gone is `keyMissing`, wiped again; one without a database is
/// replaced by the next open); (4) fsync of the directory. Running it again after a crash finishes the job (idempotent). The suite
/// stops it after each step in turn and opens the remains (`WipeCrashTests`), and kills a real
/// process after each step, inside the key's destruction too (`InterruptedWipeTests`).
///
/// A wipe that follows one cut short keeps the first tombstone when the new reason is only the
/// consequence of the first wipe (`keyMissing`: it had destroyed the key) or the same kind: the
/// first reason is the one an investigator needs.
///
/// It wipes whatever it is asked to. Whether to ask is the caller's decision: the automatic
/// recovery in `ResumeManager` skips `wrongKey` (the file was never read and may be healthy; a
/// mistyped passphrase must not destroy it), while an explicit `Vault.recover` wipes any kind,
/// `futureSchema` included (an app cannot use a newer schema, and the vault is a cache of a
/// login, not the only copy of anything).
///
/// It never wipes files it cannot prove are this vault's: under the structure lock (no process is
/// creating or opening the vault meanwhile), the database must not be a link or a plain SQLite
/// file and must have a header of ours beside it (`VaultOwnership`), and the key provider
/// destroys only a key it verified (`KeyFileProvider.destroyKey`). Otherwise `.misconfigured`,
/// and nothing (not even the tombstone) is written. And it never wipes other files than the ones
/// diagnosed: given a diagnosis (`DiagnosedFiles`), the files are compared with it under the
/// exclusive lock first, and any difference is `.changedElsewhere`, nothing written.
enum VaultWiper {
    /// - Parameters:
    ///   - diagnosed: the files the decision to wipe was taken on; nil for a wipe of whatever is
    ///     at the paths (an explicit wipe with no diagnosis behind it).
    ///   - afterStep: told the name of each step once it is done (the crash tests stop there).
    static func wipe(
        _ files: VaultFiles, keys: (any KeyProvider)?, tombstone: Tombstone?, diagnosed: DiagnosedFiles?,
        afterStep: (String) -> Void = { _ in }
    ) throws(VaultError) {
        let lock = try VaultOwnership.structureLock(files)
        defer { lock.unlock() }
        if let diagnosed, !diagnosed.stillThere(files) {
            throw .changedElsewhere("the files at \(files.database) are not the ones the damage was found in (another process recovered or replaced the vault)")
        }
        let header: VaultHeader?
        var readableHeader: VaultHeader?
        do {
            header = try HeaderFile.read(at: files.header)
            readableHeader = header
        } catch {
            // A header with our magic whose slots are both damaged is still proof of ownership.
            guard case .corrupted(let reason) = error, reason.kind == .headerDamaged else { throw error }
            header = VaultHeader(generation: 0, derivation: .stored, keyCheckValue: [])
        }
        try VaultOwnership.check(files, header: header)
        // Taken before this wipe writes anything: an earlier wipe's tombstone (written, durably,
        // before that wipe touched the key) proves a wipe of this vault was under way, and then a
        // key file that holds no key (zeros, or the torn remains of the overwrite) at the key the
        // vault names is the key that wipe destroyed and was stopped before it could unlink. The
        // shape of the bytes alone proves nothing, nor does a header: a zero file can stand at
        // any path (see `KeyLoss`).
        // A key file that holds no key (zeros, or their torn remains) at the key the vault names
        // is that key, destroyed by an earlier wipe, when that wipe's record is here: the
        // tombstone every wipe writes before it touches the key. A vault that names no key (an
        // older release's) keeps the old rule for zeros: a header of ours beside them.
        let named = readableHeader?.keyIdentity.map { $0.names(keys?.identity) } ?? true
        let wipeWasUnderWay = FileIO.exists(files.tombstone)
        let shreddedProven = named && (wipeWasUnderWay || (header != nil && readableHeader?.keyIdentity == nil))
        let tornProven = named && wipeWasUnderWay
        do {
            if let tombstone, !keepsEarlierTombstone(over: tombstone, files) {
                try tombstone.write(to: files.tombstone)
            } else if tombstone == nil, !wipeWasUnderWay {
                // A wipe the app asked for leaves no tombstone when it is done, but its record
                // must exist while it runs: cut inside the key's overwrite, it is what proves the
                // torn remains this vault's key (`KeyLoss`). Removed with the files below.
                try Tombstone(reason: .keyMissing, detail: Self.requestedWipeDetail, wipedAt: Date()).write(to: files.tombstone)
            }
            afterStep("tombstone")
        } catch {
            throw .io(error)
        }
        do {
            if let keys, !provablyAnotherVaultsKey(keys, header: readableHeader) {
                if let keyFile = keys as? KeyFileProvider {
                    try keyFile.destroyKey(shreddedKeyProvenOurs: shreddedProven, tornKeyProvenOurs: tornProven, afterStep: afterStep)
                } else {
                    try keys.destroyKey()
                    afterStep("key destroyed")
                }
            }
        } catch {
            throw VaultError(error, existingVault: false)
        }
        do {
            for path in files.wipeOrder {
                try FileIO.removeIfPresent(path)
                try FileIO.removeTemporarySiblings(of: path)
                afterStep("removed \(path)")
            }
            if tombstone == nil { try FileIO.removeIfPresent(files.tombstone) }
            try FileIO.fsyncDirectory(files.directory)
            afterStep("directory synced")
        } catch {
            throw .io(error)
        }
    }

    /// The record of a wipe the app asked for, while it runs (see `wipe`).
    static let requestedWipeDetail = "a wipe the app asked for was under way: it destroyed the key first"

    /// Whether the tombstone already there stays instead of `new`: it was left by a wipe that was
    /// cut short, and `new` only reports the same damage again or what that wipe did itself (it
    /// destroyed the key first: `keyMissing`). A tombstone of other damage is replaced.
    private static func keepsEarlierTombstone(over new: Tombstone, _ files: VaultFiles) -> Bool {
        guard let earlier = try? Tombstone.read(at: files.tombstone) else { return false }
        return new.reason == .keyMissing || new.reason == earlier.reason
    }

    /// Whether the provider's key is readable and fails this vault's key check value: another
    /// vault's key (a key file restored from another device, the wrongKey case). It is not this
    /// vault's to destroy, so it is left as it is. A key that cannot be read or checked (no
    /// readable header) is left to the provider, which destroys only a key it verified itself.
    private static func provablyAnotherVaultsKey(_ keys: any KeyProvider, header: VaultHeader?) -> Bool {
        guard let header, let root = try? keys.rootKey(recorded: header.derivation, create: false),
            let derived = try? VaultKeys(root: root.bytes)
        else { return false }
        return derived.keyCheckValue != header.keyCheckValue
    }
}

extension DiagnosedFiles {
    /// The files at the vault's paths now: what a diagnosis records and what the wipe compares
    /// it with. Nothing here fails: a file that cannot be looked at is recorded as absent, which
    /// can only make the comparison fail (then nothing is wiped and the caller decides again).
    /// - Parameters:
    ///   - keyFilePath: the key file to identify, if the key lives in one (`keyFilePath(of:)`).
    ///   - wholeHeader: see `DiagnosedFiles.wholeHeader`.
    static func capture(_ files: VaultFiles, keyFilePath: String?, wholeHeader: Bool = true) -> DiagnosedFiles {
        let headerBytes = try? FileIO.read(files.header)
        return DiagnosedFiles(
            database: identity(of: files.database), header: identity(of: files.header), headerBytes: headerBytes,
            keyCheckValue: headerBytes.flatMap(VaultHeader.decode)?.keyCheckValue,
            keyFilePath: keyFilePath, keyFile: keyFilePath.flatMap(identity(of:)), wholeHeader: wholeHeader)
    }

    /// The key file of `provider`, when it keeps its key in one.
    static func keyFilePath(of provider: (any KeyProvider)?) -> String? {
        (provider as? KeyFileProvider)?.path
    }

    /// Whether the files at the vault's paths are still the ones diagnosed.
    func stillThere(_ files: VaultFiles) -> Bool {
        sameFiles(as: Self.capture(files, keyFilePath: keyFilePath, wholeHeader: wholeHeader))
    }

    private static func identity(of path: String) -> FileID? {
        guard let info = try? FileIO.status(path) else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
