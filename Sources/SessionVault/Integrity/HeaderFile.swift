import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads and writes the vault header file (see `VaultHeader` for the slot scheme).
package final class HeaderFile {
    let path: String
    private let descriptor: Int32
    private(set) var current: VaultHeader
    /// The key check value of the header this file was opened with: the key this process uses.
    private let openedKeyCheckValue: [UInt8]
    /// Signs every slot this file writes (see `VaultHeader.authenticity`); nil only in tests
    /// that make the unsigned headers of older releases.
    private let keys: VaultKeys?

    /// Writes a new header file atomically and durably (both slots), then opens it for updates.
    package static func create(at path: String, header: VaultHeader, keys: VaultKeys?) throws(FileIOError) -> HeaderFile {
        var header = header
        header.tag = VaultHeader.tag(ofSlot: header.encodedSlot(signedWith: keys))
        var older = header
        older.sequence = header.sequence &- 1
        var bytes = [UInt8](repeating: 0, count: VaultHeader.fileSize)
        bytes.replaceSubrange(header.slotOffset..<(header.slotOffset + VaultHeader.slotSize), with: header.encodedSlot(signedWith: keys))
        bytes.replaceSubrange(older.slotOffset..<(older.slotOffset + VaultHeader.slotSize), with: older.encodedSlot(signedWith: keys))
        try FileIO.writeAtomically(path, contents: bytes, mode: 0o600, overwrite: true)
        return try HeaderFile(path: path, header: header, keys: keys)
    }

    /// The newest valid header at `path`: nil when there is no file; `.headerDamaged` when the
    /// file carries our magic but neither slot is valid; `.misconfigured` when it is not ours.
    package static func read(at path: String) throws(VaultError) -> VaultHeader? {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path)
        } catch {
            if error.isNotFound { return nil }
            if error.errno == ELOOP { throw .misconfigured("header \(path) is a symbolic link") }
            if error.errno == EACCES { throw .unavailable(retryAfter: 1, detail: "header \(path) cannot be read now") }
            throw .io(error)
        }
        guard let header = VaultHeader.decode(bytes) else {
            // Only a header that still carries our magic is proven ours and damaged; any other
            // file under this name is not ours to judge (or to wipe).
            guard VaultHeader.carriesMagic(bytes) else {
                throw .misconfigured("\(path) is not a SessionVault header (no SVHDR magic, \(bytes.count) bytes)")
            }
            throw .corrupted(CorruptionReason(.headerDamaged, "header \(path) has no valid slot (\(bytes.count) bytes)"))
        }
        return header
    }

    init(path: String, header: VaultHeader, keys: VaultKeys?) throws(FileIOError) {
        self.path = path
        self.keys = keys
        self.current = header
        self.openedKeyCheckValue = header.keyCheckValue
        self.descriptor = try FileIO.openRegularFile(path, O_RDWR)
    }

    deinit { close(descriptor) }

    /// Writes `header` (with the next sequence number) into the slot not holding the newest copy.
    /// `durable` adds an fsync: needed when the key check value or derivation changes, not for a
    /// generation that only follows a durable database commit.
    /// - Parameter newKeys: signs with these instead of the file's own: a rekey's switch to the
    ///   new key's header.
    func write(_ header: VaultHeader, durable: Bool, signedWith newKeys: VaultKeys? = nil) throws(FileIOError) {
        catchUpWithDisk()
        var next = header
        next.sequence = current.sequence &+ 1
        let slot = next.encodedSlot(signedWith: newKeys ?? keys)
        // What is kept in memory is what the disk now holds, tag included.
        next.tag = VaultHeader.tag(ofSlot: slot)
        let written = slot.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(next.slotOffset)) }
        try FileIO.valueOrErrno(written, "pwrite", path)
        guard written == slot.count else { throw FileIOError(operation: "pwrite", path: path, errno: EIO) }
        if durable { try FileIO.valueOrErrno(fsync(descriptor), "fsync", path) }
        current = next
    }

    /// Another process sharing the vault may have written since: continue from its sequence so
    /// the next write lands in the slot that does not hold the newest copy.
    private func catchUpWithDisk() {
        var onDisk = [UInt8](repeating: 0, count: VaultHeader.fileSize)
        let read = onDisk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        if read == VaultHeader.fileSize, let latest = VaultHeader.decode(onDisk), latest.sequence > current.sequence {
            current = latest
        }
    }

    /// Records which key seals the vault (`KeyProvider.identity`), durably, when the header does
    /// not name it yet: the record decides whether a missing key is this vault's lost key, so it
    /// must not be lost to a power cut after the open that made it. Only over a header of the key
    /// this file was opened with, never during a rekey, never for a passphrase.
    package func recordKeyIdentity(_ identity: KeyIdentity?) throws(FileIOError) {
        guard let identity else { return }
        catchUpWithDisk()
        guard current.keyCheckValue == openedKeyCheckValue, !current.rekeyPending, current.derivation == .stored,
            current.keyIdentity?.names(identity) != true
        else { return }
        var next = current
        next.keyIdentity = RecordedKeyIdentity(identity)
        try write(next, durable: true)
    }

    /// Records a newly committed generation: only forward, and only over a header of the key
    /// this file was opened with. A header that another process has since switched to a new key
    /// (a rekey) is never written back with this process's older key check value.
    package func recordGeneration(_ generation: UInt64) throws(FileIOError) {
        catchUpWithDisk()
        guard current.keyCheckValue == openedKeyCheckValue, !current.rekeyPending, generation > current.generation else { return }
        var next = current
        next.generation = generation
        try write(next, durable: false)
    }
}
