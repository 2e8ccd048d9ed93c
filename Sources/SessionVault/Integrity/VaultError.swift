import Foundation

/// Why a vault operation failed. Descriptions name files, fields and conditions; never a token
/// or a key.
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store cannot be trusted; see the taxonomy. Recover (wipe) and send the user to login.
    case corrupted(CorruptionReason)
    /// Written by a newer SessionVault in a format this one cannot read. Not damage: nothing is
    /// wiped. `Vault.open(create: false)` reports it and leaves the files in place; an open with
    /// `create` sets them aside (`Vault.setAside`) and returns a fresh vault instead.
    case newerFormat(NewerVaultFormat)
    /// The key or file cannot be read right now; retry. Nothing is wiped.
    case unavailable(retryAfter: TimeInterval, detail: String)
    /// The path does not lead to this vault's own files, or they cannot be proven ours: a foreign
    /// file where the database or its header should be (an app's own SQLite database, a file
    /// without our format magic), a database reached through a symbolic link, a key file that is
    /// not ours. Nothing was deleted, truncated or written; fix the configuration.
    case misconfigured(String)
    /// The key provider asked is not the one this vault names (`KeyProvider.identity`, recorded
    /// beside the key check value): its key being missing, or a key file there holding no key,
    /// proves nothing about this vault's key. Nothing was wiped; give the provider the vault
    /// names. `vaultKey` and `providerKey` name both keys (never a secret).
    case otherKey(vaultKey: String, providerKey: String)
    /// The key provider refused (e.g. a key file readable by others).
    case keyProvider(KeyProviderError)
    /// The SQLite library linked is not SQLCipher (`PRAGMA cipher_version` is empty): refusing
    /// to write tokens into a plaintext database.
    case notSQLCipher
    /// The disk is full or a file-size limit was reached. The write was rolled back; the
    /// previously committed session is intact.
    case storageFull(String)
    /// A database operation failed (read-only directory, I/O error). Nothing committed was lost.
    /// The description names SQLite's result code, its message and the statement's SQL (values
    /// are always bound, so never a token).
    case database(String)
    /// A file operation failed.
    case io(FileIOError)
    /// libsodium failed (locked memory could not be allocated, a seal did not open).
    case crypto(CryptoError)
    /// The token response given to `store` or `rotate` was refused.
    case invalidTokenResponse(TokenResponseError)
    /// The operation needs a current session and there is none.
    case noSession
    /// The session changed (signed out, replaced or rotated) since the caller read it: the
    /// result was dropped instead of being written over newer state.
    case staleSession
    /// The vault was closed or wiped.
    case closed
    /// An argument is out of range: the caller's mistake.
    case invalidArgument(String)
    /// A fault inside the library, not the caller's and not the store's: an error of a kind the
    /// operation cannot produce, or a check of its own work that failed (a re-encrypted copy
    /// that does not read back). Nothing was committed by the failed operation; report it.
    case internalFault(String)
    /// A refresh answer names another subject than the session it refreshed: nothing was stored.
    case subjectMismatch
    /// A recovery wipe found other files than the ones the corruption was diagnosed in (another
    /// process recovered the vault, or replaced it, in between): nothing was wiped. Open the
    /// vault again and decide on what is there now.
    case changedElsewhere(String)

    public var description: String {
        switch self {
        case .corrupted(let reason): return "vault corrupted: \(reason)"
        case .newerFormat(let format): return "vault from a newer version: \(format)"
        case .unavailable(let retryAfter, let detail): return "vault unavailable (retry in \(retryAfter) s): \(detail)"
        case .misconfigured(let detail): return "vault misconfigured (nothing was changed): \(detail)"
        case .otherKey(let vaultKey, let providerKey):
            return "this vault's key is \(vaultKey); the key provider asked is \(providerKey): not this vault's key, "
                + "so it being missing proves nothing (nothing was changed)"
        case .keyProvider(let error): return "\(error)"
        case .notSQLCipher: return "the linked SQLite is not SQLCipher (PRAGMA cipher_version is empty); refusing to store tokens unencrypted"
        case .storageFull(let detail): return "out of storage space: \(detail)"
        case .database(let detail): return detail
        case .io(let error): return "\(error)"
        case .crypto(let error): return "\(error)"
        case .invalidTokenResponse(let error): return "\(error)"
        case .noSession: return "no current session"
        case .staleSession: return "the session changed meanwhile; result dropped"
        case .closed: return "the vault is closed"
        case .invalidArgument(let detail): return "invalid argument: \(detail)"
        case .internalFault(let detail): return "internal fault in SessionVault (not the caller's): \(detail)"
        case .subjectMismatch: return "the refresh response is for another subject; nothing stored"
        case .changedElsewhere(let detail): return "the vault changed since it was diagnosed; nothing was wiped: \(detail)"
        }
    }
}

extension VaultError {
    /// The one mapping of a key provider's refusal, used wherever the vault asks for a key
    /// (open, create, rekey, wipe).
    ///
    /// A locked keystore (`unavailable`) is always "not now", with the provider's retry delay:
    /// the caller retries and nothing is wiped. A missing or damaged key means the vault can
    /// never be opened again only when it is the key of a vault that exists (`existingVault`):
    /// then it is `corrupted(.keyMissing)`. Everything else keeps the provider's own words.
    init(_ error: KeyProviderError, existingVault: Bool) {
        switch error {
        case .unavailable(let retryAfter, let detail):
            self = .unavailable(retryAfter: retryAfter, detail: detail)
        case .missing(let detail) where existingVault:
            self = .corrupted(CorruptionReason(.keyMissing, detail))
        // A key file of ours (our magic and version) whose checksum or size is wrong no longer
        // holds the key: it is lost as surely as if the key file were deleted. The recovery does
        // not destroy such a file (it cannot be verified): it moves it aside. A file that is not
        // a key file of ours is `.misconfigured` and stays `.keyProvider`.
        case .invalid(let detail) where existingVault:
            self = .corrupted(CorruptionReason(.keyMissing, "the key is damaged: \(detail)"))
        default:
            self = .keyProvider(error)
        }
    }
}

extension VaultError {
    /// The one mapping of a migrator's refusal: what damage it means, or a newer library's
    /// format that is not damage at all.
    /// - Parameter classifying: how an engine failure met while migrating is read (at open,
    ///   with the key at hand to tell a wrong key from damage).
    init(_ error: MigrationError, classifying: (SQLiteError) -> VaultError) {
        switch error {
        case .checksumMismatch: self = .corrupted(CorruptionReason(.migrationChecksumMismatch, error.description))
        // Future migrations without a format marker (every library that writes a newer schema
        // records one): the history cannot be trusted, reported as corrupted(.futureSchema), and
        // recovery wipes it.
        case .futureSchema: self = .corrupted(CorruptionReason(.futureSchema, error.description))
        // A newer library's format that this one cannot read: not damage; Vault.open sets it aside.
        case .newerFormat(let readableSince, let newestKnown):
            self = .newerFormat(NewerVaultFormat(readableSince: readableSince, newestKnown: newestKnown))
        case .malformedHistory: self = .corrupted(CorruptionReason(.structuralDamage, error.description))
        case .sqlite(let sqliteError): self = classifying(sqliteError)
        case .completionFailed: self = .corrupted(CorruptionReason(.invariantViolation, error.description))
        }
    }
}

extension VaultError {
    /// The one mapping of a failure from the layers below a vault operation (a statement, a page
    /// check, a record, a migration, a file, libsodium) to what the caller is told: a full disk
    /// is `storageFull`, an engine error is classified against the vault's files (damage, busy,
    /// misconfiguration), and anything no operation can produce is an `internalFault`, never the
    /// caller's `invalidArgument`.
    /// - Parameter diagnosis: given where the keys are at hand (an open), damage is looked at
    ///   closer: which page, a wrong key or truncation; without it only the codes are read.
    init(underlying error: any Error, files: VaultFiles, diagnosis: CorruptionDiagnosis? = nil) {
        let classify: (SQLiteError) -> VaultError = { error in
            if error.isOutOfSpace { return .storageFull(error.description) }
            return diagnosis?.classify(error) ?? CorruptionDiagnosis.classify(error, files: files)
        }
        switch error {
        case let error as VaultError: self = error
        case let error as SQLiteError: self = classify(error)
        case is PageAuthenticationFailure:
            self = .corrupted(
                diagnosis?.damagedPageFinding().map { CorruptionReason(.damagedPage, $0.detail) }
                    ?? CorruptionReason(.damagedPage, "a page failed authentication (HMAC) when it was read"))
        case let error as CorruptionReason: self = .corrupted(error)
        case let error as MigrationError: self = VaultError(error, classifying: classify)
        case let error as FileIOError: self = .io(error)
        case let error as CryptoError: self = .crypto(error)
        default: self = .internalFault("\(error)")
        }
    }
}
