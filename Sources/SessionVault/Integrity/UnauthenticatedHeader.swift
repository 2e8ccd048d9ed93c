/// What the plaintext header beside a database says, read without any key.
///
/// For an investigator who holds a copied vault but not its key: the header's checksums prove
/// only that the file was not torn, not who wrote it, so every value here is unauthenticated.
/// The key check value and any Argon2id salt are left out (they would let a passphrase be
/// guessed offline).
package struct UnauthenticatedHeader: Sendable, Equatable {
    /// The header format version (1).
    public let formatVersion: Int
    /// The pinned SQLCipher page size (4096).
    public let cipherPageSize: Int
    /// The pinned SQLCipher PBKDF2 iteration count (64,000; unused with the raw key).
    public let kdfIterations: Int
    /// `HMAC_SHA1`: the pinned page HMAC (with PBKDF2_HMAC_SHA1 as the KDF algorithm).
    public let hmacAlgorithm: String
    /// `PBKDF2_HMAC_SHA1`.
    public let kdfAlgorithm: String
    /// `stored` (a 32-byte key file or keystore key) or `argon2id` (a passphrase).
    public let keyDerivation: String
    /// The last generation the header saw committed.
    public let generation: UInt64
    /// Set while a rekey is swapping in a re-encrypted file.
    public let rekeyPending: Bool

    /// Reads the header of the vault whose database is at `databasePath`, without a key and
    /// without writing. Nil when there is no header file.
    /// - Throws: `.corrupted(.headerDamaged)` when neither slot is valid, `.io` or `.unavailable`
    ///   when it cannot be read.
    public static func read(databasePath: String) throws(VaultError) -> UnauthenticatedHeader? {
        guard let header = try HeaderFile.read(at: VaultFiles(database: databasePath).header) else { return nil }
        let derivation: String
        switch header.derivation {
        case .stored: derivation = "stored"
        case .argon2id: derivation = "argon2id"
        }
        return UnauthenticatedHeader(
            formatVersion: Int(VaultHeader.formatVersion), cipherPageSize: Int(VaultHeader.cipherPageSize),
            kdfIterations: Int(VaultHeader.kdfIterations), hmacAlgorithm: "HMAC_SHA1", kdfAlgorithm: "PBKDF2_HMAC_SHA1",
            keyDerivation: derivation, generation: header.generation, rekeyPending: header.rekeyPending)
    }
}
