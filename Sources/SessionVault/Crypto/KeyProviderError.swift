import Foundation

/// Why a key provider could not hand over the root key.
///
/// The distinction matters more than the detail: `missing` for an existing vault means the vault
/// can never be opened again (corrupted: wipe), while `unavailable` means "not now" (retry, never
/// wipe). Messages name paths and conditions, never key bytes.
public enum KeyProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No key exists (key file deleted, keystore item gone).
    case missing(String)
    /// The key exists but cannot be read right now (keystore locked after a restart, volume not
    /// mounted, permission denied for now). Retry after `retryAfter` seconds.
    case unavailable(retryAfter: TimeInterval, detail: String)
    /// The stored key is damaged (length, magic, version, checksum): it can never give the right
    /// key again. For an existing vault this is `corrupted(.keyMissing)`.
    case invalid(String)
    /// The provider does not fit this vault or is set up wrong (a passphrase for a vault made with
    /// a key file, a directory where the key file should be). Never read as a lost key: nothing
    /// is wiped for it.
    case misconfigured(String)
    /// The key file is readable by others or is a symbolic link: refused.
    case insecure(String)
    /// Writing a new key failed.
    case writeFailed(FileIOError)
    /// A libsodium primitive failed.
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case .missing(let detail): return "key missing: \(detail)"
        case .unavailable(let retryAfter, let detail): return "key unavailable right now (retry in \(retryAfter) s): \(detail)"
        case .invalid(let detail): return "key invalid: \(detail)"
        case .misconfigured(let detail): return "key provider misconfigured: \(detail)"
        case .insecure(let detail): return "key storage insecure: \(detail)"
        case .writeFailed(let error): return "could not write key: \(error)"
        case .crypto(let error): return "key crypto failure: \(error)"
        }
    }
}

/// A key provider's work allocates locked memory: its own error carries that failure too, so
/// `SecretBytes`' allocation throws the provider's error type and needs no cast.
extension KeyProviderError: CryptoFailureCarrying {
    init(cryptoFailure failure: CryptoError) { self = .crypto(failure) }
}
