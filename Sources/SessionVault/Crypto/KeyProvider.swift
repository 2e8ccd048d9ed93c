import Foundation

/// Where a vault's 32-byte root key comes from.
///
/// SessionVault ships `KeyFileProvider` and `PassphraseKeyProvider`; `SessionVaultTesting`
/// adds `InMemoryKeyProvider` for tests and previews. An app on Apple platforms conforms its own
/// Keychain-backed type (see the README): return `.missing` when the item is not found and
/// `.unavailable` for `errSecInteractionNotAllowed` (the device is locked after a restart), so a
/// locked keychain is never read as "no session".
public protocol KeyProvider: Sendable {
    /// Returns the root key.
    ///
    /// - Parameters:
    ///   - recorded: the derivation the vault header recorded, or nil for a new vault.
    ///   - create: true when the vault is being created; a provider with no key yet makes one.
    ///     When false, a provider with no key throws `.missing`.
    func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey

    /// Destroys the stored key (crypto-shred) when the vault is wiped.
    func destroyKey() throws(KeyProviderError)

    /// The generation record last stored beside the key (opaque bytes the vault made and
    /// authenticated), or nil when there is none or this provider keeps none.
    ///
    /// Why beside the key: a database put back together with its header from an older copy
    /// is consistent in itself; only a record kept elsewhere tells that the vault had been
    /// further. A Keychain item can carry it (as a second item, or the key item's generic
    /// attribute); `KeyFileProvider` keeps it in `<key file>.generation`.
    func generationRecord() throws(KeyProviderError) -> [UInt8]?

    /// Stores the generation record beside the key, replacing the previous one. Called after
    /// commits; it need not be durable (a record that lags is accepted, one that leads is the
    /// proof of a restore).
    func storeGenerationRecord(_ record: [UInt8]) throws(KeyProviderError)

    /// Which key this provider stands for, never a secret: the vault records it beside its key
    /// check value, and a key that is missing (or a key file a wipe zeroed) is taken as this
    /// vault's lost key only when the provider asked names the same key. A provider with another
    /// identity is a misconfiguration: nothing is wiped. Never an absolute path (a vault restored
    /// into a new container must still know its key): `KeyFileProvider` gives its file's name, a
    /// keychain provider its service and account. Nil (the default): the vault records none, and
    /// a missing key is taken as lost, as before identities existed.
    var identity: KeyIdentity? { get }
}

/// The name of a key, as a `KeyProvider` gives it and a vault records it: what kind of store
/// holds the key and its name there. Never a secret and never an absolute path.
public struct KeyIdentity: Sendable, Equatable, CustomStringConvertible {
    /// The kind of store, e.g. `keyFile` or `keychain`.
    public let kind: String
    /// The key's name in that store: a key file's name, a keychain item's service and account.
    public let name: String

    /// - Parameters:
    ///   - kind: the kind of store, e.g. `keychain`.
    ///   - name: the key's name there, e.g. the item's service and account.
    public init(kind: String, name: String) {
        self.kind = kind
        self.name = name
    }

    /// `keyFile "vault.key"`.
    public var description: String { "\(kind) \"\(name)\"" }
}

extension KeyProvider {
    /// Destroys the key material (crypto-shred), called by a recovery wipe. The default does
    /// nothing: deleting the vault header already destroys the salt and key check value. A
    /// provider that stores a key (key file, keychain item) deletes it.
    public func destroyKey() throws(KeyProviderError) {}

    /// No record: a provider that cannot keep one beside its key (a passphrase) leaves the
    /// restore of a whole older copy of the files undetected.
    public func generationRecord() throws(KeyProviderError) -> [UInt8]? { nil }

    /// Stores nothing (see `generationRecord()`).
    public func storeGenerationRecord(_ record: [UInt8]) throws(KeyProviderError) {}

    /// None: the vault records no identity (see `identity`).
    public var identity: KeyIdentity? { nil }
}

/// A 32-byte root key and how it was obtained.
public struct RootKey: Sendable {
    /// The key bytes, in locked memory.
    public let bytes: SecretBytes
    /// Recorded in the vault header so the same key can be derived again.
    public let derivation: KeyDerivation

    /// A key a custom `KeyProvider` hands out: exactly `byteCount` bytes, in locked memory.
    public init(bytes: SecretBytes, derivation: KeyDerivation = .stored) {
        self.bytes = bytes
        self.derivation = derivation
    }

    /// Root keys are exactly this long (libsodium's crypto_kdf key size).
    public static let byteCount = 32
}

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
