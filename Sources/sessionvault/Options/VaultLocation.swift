import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// What is at `--vault PATH`, checked before anything is opened, so bad input gets a one-line
/// error naming the problem and a file that is not a vault is never mistaken for a damaged one
/// (and wiped).
struct VaultLocation {
    let files: VaultFiles
    /// Whether the database file exists.
    let databaseExists: Bool
    /// Whether the plaintext header beside it exists.
    let headerExists: Bool
    /// Left by a recovery wipe.
    let tombstone: Tombstone?

    var path: String { files.database }

    /// Checks the path: a directory, something other than a regular file, or a plain
    /// (unencrypted) SQLite database is refused.
    init(path: String) throws(CLIFailure) {
        files = VaultFiles(database: path)
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw CLIFailure("--vault \(path) is a directory; give the vault's database file (e.g. \(path)/vault.db)")
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw CLIFailure("--vault \(path) is not a regular file") }
            if Self.isPlainSQLite(path) {
                throw CLIFailure("\(path) is a plain, unencrypted SQLite database, not a SessionVault vault")
            }
            databaseExists = true
        } else if errno == ENOENT {
            databaseExists = false
        } else {
            let code = errno
            throw CLIFailure("--vault \(path) cannot be examined: \(String(cString: strerror(code)))")
        }
        headerExists = access(files.header, F_OK) == 0
        do {
            tombstone = try Vault.readTombstone(at: path)
        } catch {
            throw CLIFailure("\(files.tombstone) cannot be read: \(error)")
        }
    }

    /// For commands that read an existing vault: refuses a missing file, and a file with no
    /// header beside it and no tombstone (not a vault; an interrupted wipe leaves a tombstone).
    func requireVault() throws(CLIFailure) {
        guard databaseExists else {
            if let tombstone {
                throw CLIFailure("no vault at \(path): it was wiped at \(TimeFormat.iso(tombstone.wipedAt)) (\(tombstone.reason.rawValue))")
            }
            throw CLIFailure("no vault at \(path)")
        }
        if !looksLikeVault {
            throw CLIFailure("\(path) is not a SessionVault vault: there is no header file \(files.header) beside it")
        }
    }

    /// A header or a tombstone beside the database: it is (or was) a vault.
    var looksLikeVault: Bool { headerExists || tombstone != nil }

    /// For a new vault: the directory must exist.
    func requireCreatable() throws(CLIFailure) {
        let directory = FileIO.parentDirectory(of: path)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) || !isDirectory.boolValue {
            throw CLIFailure("the directory \(directory) for --vault does not exist")
        }
    }

    /// A plaintext SQLite file starts with this; a SQLCipher file starts with random salt.
    private static func isPlainSQLite(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        return head == Data("SQLite format 3\u{0}".utf8)
    }
}
