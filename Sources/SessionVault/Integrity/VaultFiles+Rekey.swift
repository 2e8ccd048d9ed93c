import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension VaultFiles {
    /// A rekey's switch, once its header says "rekey pending" durably: the old file's log goes
    /// (everything in it is in the copy), the re-encrypted copy takes the database's name, and
    /// the directory is synced. Done by `Vault.rekey` itself and, after a crash, by the next
    /// open (`VaultOpener.finishRekey`, the roll forward); written once so the two cannot drift.
    func promoteRekeyedCopy() throws(FileIOError) {
        for sidecar in [wal, sharedMemory] { try FileIO.removeIfPresent(sidecar) }
        try FileIO.valueOrErrno(rename(rekeyTemporary, database), "rename", database)
        try FileIO.fsyncDirectory(directory)
    }
}
