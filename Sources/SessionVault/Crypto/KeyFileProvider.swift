import CSodium
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A root key kept in a small file of its own, mode 0600.
///
/// Format (56 bytes, version 1): `SVKEY\0`, version byte, reserved byte, the 32 key bytes, and a
/// 16-byte BLAKE2b checksum of the first 40 bytes, so a damaged key file is reported as damaged
/// rather than silently producing a wrong key. The file is created with an atomic, no-overwrite
/// write; a file readable by group or others, or a symbolic link, is refused.
public struct KeyFileProvider: KeyProvider {
    /// The key file.
    public let path: String

    /// A provider for the key file at `path`. Nothing is read until a vault is opened; a vault
    /// that is created makes the file when it is absent.
    public init(path: String) { self.path = path }

    /// `keyFile` and the file's name, not its directory: a vault and its key restored into
    /// another container still name the same key.
    public var identity: KeyIdentity? { KeyIdentity(kind: "keyFile", name: FileIO.lastComponent(of: path)) }

    package static let magic: [UInt8] = Array("SVKEY".utf8) + [0]
    package static let version: UInt8 = 1
    package static let fileSize = 56
    private static let checksumOffset = 40

    /// Creates a new random key file at `path`; refuses to replace an existing file.
    @discardableResult
    public static func create(at path: String) throws(KeyProviderError) -> KeyFileProvider {
        let provider = KeyFileProvider(path: path)
        _ = try provider.writeNewKey()
        return provider
    }

    public func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey {
        let info: stat?
        do {
            info = try FileIO.status(path)
        } catch {
            // An lstat that fails for any reason but absence (EACCES, EIO, ESTALE, ...) says
            // nothing about the key itself: try again later, never treat it as lost.
            throw .unavailable(retryAfter: 1, detail: "key file \(path) cannot be reached now (\(error))")
        }
        guard let info else {
            let directory = FileIO.parentDirectory(of: path)
            // A missing directory is a volume that is not mounted (yet), not a deleted key.
            if !FileIO.exists(directory) {
                throw .unavailable(retryAfter: 1, detail: "key directory \(directory) is not present")
            }
            guard create else { throw .missing("no key file at \(path)") }
            return RootKey(bytes: try writeNewKey())
        }
        if (info.st_mode & S_IFMT) == S_IFLNK { throw .insecure("\(path) is a symbolic link") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .misconfigured("\(path) is not a regular file") }
        if info.st_mode & 0o077 != 0 {
            throw .insecure("\(path) is readable or writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8)); expected 600)")
        }
        // Whose file is it? Only a file that starts with our magic and our version is a key file
        // of ours; anything else (a settings file the path was pointed at by mistake, a key file
        // of a newer format) is a misconfiguration, never a lost key: nothing is wiped for it.
        // What a wipe stopped between the overwrite and the unlink leaves (see `destroyKey`): no
        // key any more, so "missing", which the vault reads as keyMissing and recovers from. It
        // is only reported here; acting on it needs proof that the vault beside it is ours.
        if info.st_size == Int64(Self.fileSize), holdsShreddedKey() {
            // Creating: the vault beside it had proof to remove it (`VaultOpener` did, before
            // asking); without that proof the file is not ours to replace.
            if create { throw .misconfigured("\(path) holds only zeros and no vault of ours beside it proves it a key we destroyed; not replaced") }
            throw .missing("\(path) holds only zeros: a key destroyed by a wipe that was interrupted")
        }
        if let foreign = try ownership(size: Int64(info.st_size)) { throw .misconfigured(foreign) }
        guard info.st_size == Int64(Self.fileSize) else {
            throw .invalid("\(path) is \(info.st_size) bytes; a key file is \(Self.fileSize)")
        }
        return RootKey(bytes: try readKey())
    }

    /// Nil when the file at `path` starts with our magic and our key-file version (ours, though
    /// possibly damaged further on); otherwise why it is not a key file of ours. Reads only the
    /// 8-byte prefix, which holds no key bytes.
    private func ownership(size: Int64) throws(KeyProviderError) -> String? {
        let prefixCount = Self.magic.count + 1
        guard size >= Int64(prefixCount) else { return "\(path) is \(size) bytes: not a SessionVault key file" }
        let prefix: [UInt8]
        do {
            let fd = try FileIO.valueOrErrno(open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), "open", path)
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: prefixCount)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            try FileIO.valueOrErrno(n, "pread", path)
            prefix = Array(bytes.prefix(max(n, 0)))
        } catch {
            if error.isNotFound { throw .missing("no key file at \(path)") }
            throw .unavailable(retryAfter: 1, detail: "key file \(path) cannot be read now (\(error))")
        }
        guard prefix.count == prefixCount, Array(prefix.prefix(Self.magic.count)) == Self.magic else {
            return "\(path) is not a SessionVault key file (no SVKEY magic)"
        }
        guard prefix[Self.magic.count] == Self.version else {
            return "\(path) is a key file of version \(prefix[Self.magic.count]); this library reads version \(Self.version)"
        }
        return nil
    }

    private func readKey() throws(KeyProviderError) -> SecretBytes {
        let fd: Int32
        do {
            // Non-blocking and type-checked on the descriptor: a FIFO swapped in after the lstat
            // in rootKey must not hang the open.
            fd = try FileIO.openRegularFile(path, O_RDONLY)
        } catch {
            if error.isNotRegularFile { throw .misconfigured("\(path) is not a regular file") }
            if error.errno == ENOENT { throw .missing("no key file at \(path)") }
            if error.errno == ELOOP { throw .insecure("\(path) is a symbolic link") }
            // EACCES, EMFILE, ENFILE, EINTR, EIO, ...: the key may be fine; it cannot be read now.
            throw .unavailable(retryAfter: 1, detail: "key file \(path) cannot be opened now (errno \(error.errno))")
        }
        defer { close(fd) }
        do {
            let file = try SecretBytes(count: Self.fileSize) { (buffer) throws(KeyProviderError) in
                var offset = 0
                while offset < buffer.count {
                    let n = read(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                    if n < 0 { throw KeyProviderError.unavailable(retryAfter: 1, detail: "key file \(path) could not be read now (errno \(errno))") }
                    if n == 0 { throw KeyProviderError.invalid("\(path) is shorter than a key file") }
                    offset += n
                }
            }
            let problem: KeyProviderError? = file.withBytePointer { bytes, count in
                guard (0..<Self.magic.count).allSatisfy({ bytes[$0] == Self.magic[$0] }) else {
                    return .invalid("\(path) is not a SessionVault key file")
                }
                guard bytes[Self.magic.count] == Self.version else {
                    return .invalid("\(path) has unknown key file version \(bytes[Self.magic.count])")
                }
                var expected = [UInt8](repeating: 0, count: 16)
                crypto_generichash(&expected, 16, bytes, UInt64(Self.checksumOffset), nil, 0)
                guard sodium_memcmp(bytes + Self.checksumOffset, expected, 16) == 0 else {
                    return .invalid("\(path) is damaged (checksum mismatch)")
                }
                return nil
            }
            if let problem { throw problem }
            return try file.withUnsafeBytes { (bytes) throws(KeyProviderError) in
                do throws(CryptoError) { return try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[8..<(8 + RootKey.byteCount)])) } catch {
                    throw .crypto(error)
                }
            }
        }
    }

    private func writeNewKey() throws(KeyProviderError) -> SecretBytes {
        let key: SecretBytes
        let file: SecretBytes
        do {
            key = try SecretBytes.random(count: RootKey.byteCount)
            file = try SecretBytes(count: Self.fileSize) { buffer in
                guard let base = buffer.baseAddress else { return }
                base.copyMemory(from: Self.magic, byteCount: Self.magic.count)
                buffer[Self.magic.count] = Self.version
                key.withUnsafeBytes { keyBytes in
                    if let source = keyBytes.baseAddress { (base + 8).copyMemory(from: source, byteCount: keyBytes.count) }
                }
                crypto_generichash(base + Self.checksumOffset, 16, base, UInt64(Self.checksumOffset), nil, 0)
            }
        } catch {
            throw .crypto(error)
        }
        do {
            try file.withUnsafeBytes { (bytes) throws(FileIOError) in
                try FileIO.writeAtomically(path, bytes: bytes, mode: 0o600, overwrite: false)
            }
        } catch {
            if error.errno == EEXIST { throw .invalid("\(path) already exists; refusing to overwrite a key file") }
            throw .writeFailed(error)
        }
        return key
    }
}

extension KeyFileProvider {
    /// Destroys the key file, but only one proven to be this provider's key: our magic, our
    /// version and a matching checksum. Overwrites it with zeros, syncs it, and deletes it.
    ///
    /// Anything else is left as it is: a file that is not a key file of ours (a settings file the
    /// path was pointed at, a newer key-file version) is refused with `.misconfigured`, every
    /// byte unchanged. A key file of ours whose checksum fails cannot be verified either, so it is
    /// not destroyed: it is renamed aside to `<path>.damaged-<unix time>` (kept for whoever wants
    /// to examine it) and the path is free for the next vault's key.
    public func destroyKey() throws(KeyProviderError) {
        try destroyKey(shreddedKeyProvenOurs: false)
    }

    /// `destroyKey()`, as the recovery wipe calls it.
    ///
    /// A destruction stopped after the overwrite leaves a key file's length of zeros at the path;
    /// stopped inside it, their torn remains (`holdsNoKey`). With `shreddedKeyProvenOurs` (this
    /// vault's header beside it names this key) the zeros are deleted like the key they were;
    /// with `tornKeyProvenOurs` (a wipe of this vault was under way as well) so are torn remains,
    /// zeroed first. Without, such a file is not ours, refused as `destroyKey()` refuses it.
    /// - Parameter afterStep: told each step once it is done (the crash tests stop there).
    /// - Parameter tornKeyProvenOurs: the torn remains of the overwrite (`holdsNoKey`) are ours
    ///   too: a wipe of this vault was under way (its tombstone was there before this wipe).
    package func destroyKey(
        shreddedKeyProvenOurs: Bool, tornKeyProvenOurs: Bool = false, afterStep: (String) -> Void = { _ in }
    ) throws(KeyProviderError) {
        let info: stat?
        do { info = try FileIO.status(path) } catch { throw .unavailable(retryAfter: 1, detail: "key file \(path) cannot be examined now (\(error))") }
        if let info {
            if (info.st_mode & S_IFMT) == S_IFLNK { throw .insecure("\(path) is a symbolic link; not destroyed") }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw .misconfigured("\(path) is not a regular file; not destroyed") }
            if shreddedKeyProvenOurs && holdsShreddedKey() {
                // Zeros: the overwrite finished; the unlink below finishes the wipe.
            } else if tornKeyProvenOurs && holdsNoKey() {
                // The torn remains of the overwrite a wipe was stopped in: finish it first.
                try overwriteWithZeros()
            } else {
                if let foreign = try ownership(size: Int64(info.st_size)) { throw .misconfigured("\(foreign); not destroyed") }
                let verified: Bool
                do {
                    _ = try readKey()
                    verified = info.st_size == Int64(Self.fileSize)
                } catch {
                    guard case .invalid = error else { throw error }
                    verified = false
                }
                if verified {
                    try overwriteWithZeros()
                    afterStep("key zeroed")
                } else {
                    try moveAside()
                    afterStep("key moved aside")
                }
            }
        }
        do {
            try FileIO.removeIfPresent(path)
            afterStep("key unlinked")
            try removeGenerationRecord()
            try FileIO.removeTemporarySiblings(of: path)
            try FileIO.fsyncDirectory(FileIO.parentDirectory(of: path))
            afterStep("key directory synced")
        } catch {
            throw .writeFailed(error)
        }
    }

    /// The name a damaged key file of ours is kept under by `destroyKey`.
    package static func damagedName(for path: String, at time: Date = Date()) -> String {
        "\(path).damaged-\(Int64(time.timeIntervalSince1970))"
    }

    private func overwriteWithZeros() throws(KeyProviderError) {
        // Only a regular file is overwritten, and nothing blocks on a FIFO swapped in meanwhile.
        guard let fd = try? FileIO.openRegularFile(path, O_WRONLY) else { return }
        defer { close(fd) }
        let zeros = [UInt8](repeating: 0, count: Self.fileSize)
        _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        fsync(fd)
    }

    private func moveAside() throws(KeyProviderError) {
        // link, not rename: it refuses to replace an earlier damaged copy of the same second.
        let target = Self.damagedName(for: path)
        do {
            try FileIO.valueOrErrno(link(path, target), "link", target)
        } catch {
            throw .writeFailed(error)
        }
    }
}

extension KeyFileProvider {
    /// Whether the key path holds what `destroyKey` leaves when it is stopped between its
    /// overwrite and its unlink: exactly a key file's length of zero bytes, a regular file (not a
    /// link) readable by its owner only. It holds no key of any vault.
    ///
    /// The bytes alone do not prove the file ours: the caller acts on it only beside other proof
    /// that a vault of ours lives here (its header, or a wipe's tombstone). Reads without
    /// blocking (a FIFO at the path is not waited on).
    package func holdsShreddedKey() -> Bool {
        guard let bytes = keyFileSizedBytes() else { return false }
        return bytes.allSatisfy { $0 == 0 }
    }

    /// Whether the key path holds what an overwrite with zeros leaves, whole or torn: a key
    /// file's length, and a prefix whose every byte is zero or the byte our magic and version put
    /// there, with at least one of them zero (an intact prefix is a key file of ours, judged by
    /// its checksum). A crash that tears the overwrite leaves part zeros, part key bytes: no
    /// key, and no magic to tell it by. Like `holdsShreddedKey`, the bytes alone prove nothing:
    /// `KeyLoss` and the wipe act on it only beside the tombstone of a wipe under way.
    package func holdsNoKey() -> Bool {
        guard let bytes = keyFileSizedBytes() else { return false }
        let prefix = Self.magic + [Self.version]
        let matches = prefix.indices.allSatisfy { bytes[$0] == 0 || bytes[$0] == prefix[$0] }
        return matches && prefix.indices.contains { prefix[$0] != 0 && bytes[$0] == 0 }
    }

    /// The key path's bytes when it is a regular file of a key file's length, readable by its
    /// owner only; nil otherwise.
    private func keyFileSizedBytes() -> [UInt8]? {
        guard let info = try? FileIO.status(path), (info.st_mode & S_IFMT) == S_IFREG,
            info.st_mode & 0o077 == 0, info.st_size == Int64(Self.fileSize),
            let bytes = try? FileIO.read(path), bytes.count == Self.fileSize
        else { return nil }
        return bytes
    }

    /// Removes the key path when it holds a shredded key (`holdsShreddedKey`) of a vault proven
    /// ours by the caller, with the generation record beside it, and syncs the directory.
    /// - Returns: whether it removed one.
    package func removeShreddedKey() throws(KeyProviderError) -> Bool {
        guard holdsShreddedKey() else { return false }
        do {
            try FileIO.removeIfPresent(path)
            try removeGenerationRecord()
            try FileIO.fsyncDirectory(FileIO.parentDirectory(of: path))
        } catch {
            throw .writeFailed(error)
        }
        return true
    }
}
