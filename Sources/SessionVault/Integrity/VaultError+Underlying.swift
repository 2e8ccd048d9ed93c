extension VaultError {
    /// The one mapping of a failure from the layers below a vault operation (a statement, a page
    /// check, a record, a file, libsodium) to what the caller is told: a full disk is
    /// `storageFull`, an engine error is classified against the vault's files (damage, busy,
    /// misconfiguration), and anything no operation can produce is an `internalFault`, never the
    /// caller's `invalidArgument`.
    init(underlying error: any Error, files: VaultFiles) {
        switch error {
        case let error as VaultError: self = error
        case let error as SQLiteError where error.isOutOfSpace: self = .storageFull(error.description)
        case let error as SQLiteError: self = CorruptionDiagnosis.classify(error, files: files)
        case is PageAuthenticationFailure:
            self = .corrupted(CorruptionReason(.damagedPage, "a page read after a change failed authentication (HMAC)"))
        case let error as CorruptionReason: self = .corrupted(error)
        case let error as MigrationError: self = VaultError(error) { CorruptionDiagnosis.classify($0, files: files) }
        case let error as FileIOError: self = .io(error)
        case let error as CryptoError: self = .crypto(error)
        default: self = .internalFault("\(error)")
        }
    }
}
