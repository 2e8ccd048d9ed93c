import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension KeyFileProvider {
    /// Whether the key path holds what `destroyKey` leaves when it is stopped between its
    /// overwrite and its unlink: exactly a key file's length of zero bytes, a regular file (not a
    /// link) readable by its owner only. It holds no key of any vault.
    ///
    /// The bytes alone do not prove the file ours: the caller acts on it only beside other proof
    /// that a vault of ours lives here (its header, or a wipe's tombstone). Reads without
    /// blocking (a FIFO at the path is not waited on).
    package func holdsShreddedKey() -> Bool {
        guard let info = try? FileIO.status(path), (info.st_mode & S_IFMT) == S_IFREG,
              info.st_mode & 0o077 == 0, info.st_size == Int64(Self.fileSize),
              let bytes = try? FileIO.read(path) else { return false }
        return bytes.count == Self.fileSize && bytes.allSatisfy { $0 == 0 }
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
