import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// The proof that the files at a vault's paths are this vault's, checked before anything is
/// opened, created or wiped.
///
/// Why: a wipe deletes, truncates and overwrites. It may only touch files the library can prove
/// it wrote: a header with our format magic beside the database (`VaultHeader`), and a key file
/// that passes its own checks (`KeyFileProvider.destroyKey`). A path pointed at an app's own
/// SQLite database, at a database whose header of ours is not there, or through a symbolic link
/// is a misconfiguration: reported as `.misconfigured`, every byte left as it was.
enum VaultOwnership {
    /// The first 16 bytes of every unencrypted SQLite database. A SQLCipher file starts with its
    /// random salt instead, so a file that starts with this is never one of ours.
    static let plainSQLiteMagic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Throws `.misconfigured` unless the database path, if anything is there, is a regular file
    /// (not a link) that is not a plain SQLite database, with a header of ours beside it.
    /// `header` is the result of `HeaderFile.read` (which already refused a foreign header).
    /// Returns the database's `lstat`, nil when there is no database.
    @discardableResult
    static func check(_ files: VaultFiles, header: VaultHeader?) throws(VaultError) -> stat? {
        guard let info = try databaseStatus(files) else { return nil }
        guard header != nil else {
            throw .misconfigured(
                "\(files.database) exists but has no SessionVault header beside it (\(files.header)); it cannot be proven to be this vault's database")
        }
        return info
    }

    /// The database's `lstat` after the checks that need no header: not a link, a regular file,
    /// not a plain SQLite database.
    static func databaseStatus(_ files: VaultFiles) throws(VaultError) -> stat? {
        let info: stat?
        do {
            info = try FileIO.status(files.database)
        } catch {
            // Only a database that is really absent (ENOENT) means "create": any other failure
            // to look at it (EACCES, EIO, ESTALE) is "not now", never a reason to start over.
            throw .unavailable(retryAfter: 1, detail: "the database cannot be examined now: \(error)")
        }
        guard let info else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            break
        case S_IFLNK:
            // Refused rather than resolved: sizes, sidecars (-wal, -shm, -header) and the lock
            // would otherwise describe the link while SQLite writes through it.
            throw .misconfigured("\(files.database) is a symbolic link; open the vault at its real path")
        default:
            throw .misconfigured("\(files.database) is not a regular file")
        }
        // A file this process already has a connection to was checked when that connection
        // opened it; reading it again through a descriptor of our own would drop that
        // connection's locks when closed (see `OpenDatabaseFiles`).
        if !OpenDatabaseFiles.hasConnection(to: files.database), try startsWithPlainSQLiteMagic(files.database) {
            throw .misconfigured("\(files.database) is a plain (unencrypted) SQLite database, not a SessionVault")
        }
        return info
    }

    private static func startsWithPlainSQLiteMagic(_ path: String) throws(VaultError) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return false }
            throw .unavailable(retryAfter: 1, detail: "the database cannot be read now (errno \(errno))")
        }
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: plainSQLiteMagic.count)
        let n = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        return n == prefix.count && prefix == plainSQLiteMagic
    }

    /// Throws `.misconfigured` when one of the files SQLite or the open's recovery opens or
    /// removes beside the database (`-wal`, `-shm`, `-journal`, `-rekey`, `-creating` and its
    /// journal) is there but is not a regular file. SQLite opens its logs itself, following
    /// links and blocking on a FIFO (3.15 has no no-follow flag), and the open removes a
    /// leftover `-rekey` or `-creating`: checked first, so nothing hangs and nothing that was
    /// never ours is removed or written through. Checked on the paths, just before use: a file
    /// swapped in after this is a race with someone changing the directory on purpose.
    static func checkSidecars(_ files: VaultFiles) throws(VaultError) {
        for path in [files.wal, files.sharedMemory, files.journal, files.rekeyTemporary, files.creating, files.creatingJournal] {
            do {
                try FileIO.requireRegularFileOrNothing(path)
            } catch {
                if error.isNotRegularFile {
                    throw .misconfigured(
                        "\(path) is a \(error.foundFileType ?? "special file"), not a regular file; a vault's files are regular files, and nothing of it was read, removed or written"
                    )
                }
                throw .unavailable(retryAfter: 1, detail: "\(path) cannot be examined now: \(error)")
            }
        }
    }

    /// Takes the vault's structure lock (`VaultFiles.structureLock`), waiting at most `budget`
    /// seconds for another process creating, opening or wiping the vault.
    static func structureLock(_ files: VaultFiles, shared: Bool = false, budget: TimeInterval = 15) throws(VaultError) -> FileLock {
        let lock: FileLock
        do {
            lock = try FileLock(path: files.structureLock)
        } catch {
            if error.errno == ELOOP || error.isNotRegularFile {
                throw .misconfigured("the lock file \(files.structureLock) is not a regular file: \(error)")
            }
            throw .unavailable(retryAfter: 1, detail: "the vault's lock file cannot be opened now: \(error)")
        }
        let held: Bool
        do { held = try lock.lock(within: budget, shared: shared) } catch {
            throw .unavailable(retryAfter: 1, detail: "the vault's lock cannot be taken now: \(error)")
        }
        guard held else {
            throw .unavailable(retryAfter: 1, detail: "another process has been creating, opening or wiping the vault for more than \(Int(budget)) s")
        }
        return lock
    }
}
