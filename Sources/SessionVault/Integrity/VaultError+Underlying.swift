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
            self = .corrupted(diagnosis?.damagedPageFinding().map { CorruptionReason(.damagedPage, $0.detail) }
                              ?? CorruptionReason(.damagedPage, "a page failed authentication (HMAC) when it was read"))
        case let error as CorruptionReason: self = .corrupted(error)
        case let error as MigrationError: self = VaultError(error, classifying: classify)
        case let error as FileIOError: self = .io(error)
        case let error as CryptoError: self = .crypto(error)
        default: self = .internalFault("\(error)")
        }
    }
}
