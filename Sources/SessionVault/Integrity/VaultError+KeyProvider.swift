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
