import Foundation
import SessionVault

/// A root key held in memory, for tests and previews. It can be made `unavailable` or `missing`
/// at run time to reproduce a locked keystore or a deleted key.
///
/// Nothing is written to disk, so a vault opened with it cannot be reopened by another process
/// or after the provider is gone: use it where a test or a preview owns the whole vault.
public final class InMemoryKeyProvider: KeyProvider, @unchecked Sendable {
    /// What `rootKey` answers.
    public enum State: Sendable {
        /// The key is handed out (or made, for a new vault).
        case available
        /// Like a keystore locked after a restart: `.unavailable`, so the vault reports `unavailable`.
        case locked
        /// Like a deleted key: `.missing`, so an existing vault reports `corrupted(.keyMissing)`.
        case missing
    }

    // Sendable: every access to the mutable state holds `lock`.
    fileprivate let lock = NSLock()
    fileprivate var key: SecretBytes?
    private var state: State = .available
    fileprivate var record: [UInt8]?

    /// A provider with a fresh random key, or `key` when given.
    public init(key: SecretBytes? = nil) throws {
        self.key = try key ?? SecretBytes.random(count: RootKey.byteCount)
    }

    /// A provider that has no key until a vault is created with it.
    public static func empty() -> InMemoryKeyProvider {
        let provider = InMemoryKeyProvider(unkeyed: ())
        return provider
    }

    private init(unkeyed: Void) {}

    /// Changes what the next `rootKey` call answers.
    public func setState(_ state: State) {
        lock.lock()
        self.state = state
        lock.unlock()
    }

    /// The key, or the refusal `setState` chose; a new random key when there is none and
    /// `create` is set.
    public func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey {
        lock.lock()
        defer { lock.unlock() }
        switch state {
        case .locked: throw .unavailable(retryAfter: 1, detail: "in-memory key is locked")
        case .missing: throw .missing("in-memory key was removed")
        case .available: break
        }
        if let key { return RootKey(bytes: key) }
        guard create else { throw .missing("in-memory provider has no key") }
        do {
            let fresh = try SecretBytes.random(count: RootKey.byteCount)
            key = fresh
            return RootKey(bytes: fresh)
        } catch {
            // `random(count:)` throws `CryptoError` (typed), so `error` is one.
            throw .crypto(error)
        }
    }
}

extension InMemoryKeyProvider {
    /// Forgets the key; the next vault created with this provider gets a new one.
    public func destroyKey() throws(KeyProviderError) {
        lock.lock()
        key = nil
        lock.unlock()
    }

    /// The generation record kept beside this key, in memory (see `KeyProvider.generationRecord()`).
    public func generationRecord() throws(KeyProviderError) -> [UInt8]? {
        lock.lock()
        defer { lock.unlock() }
        return record
    }

    /// Keeps `record` in memory beside the key, replacing the previous one.
    public func storeGenerationRecord(_ record: [UInt8]) throws(KeyProviderError) {
        lock.lock()
        self.record = record
        lock.unlock()
    }
}
