/// How the root key is obtained, as recorded in the vault header (no secrets).
public enum KeyDerivation: Sendable, Equatable {
    /// The provider hands over 32 random bytes (key file, platform keystore, memory).
    case stored
    /// Argon2id over a passphrase, with the salt and limits needed to derive the same key again.
    case argon2id(salt: [UInt8], opsLimit: UInt64, memLimit: UInt64)

    /// `stored` or `argon2id`: the stable name tools print.
    package var name: String {
        switch self {
        case .stored: return "stored"
        case .argon2id: return "argon2id"
        }
    }
}
