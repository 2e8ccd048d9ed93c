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
