import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// The database files this process has keyed SQLite connections to, by device and inode.
///
/// Why: POSIX record locks belong to the process, and closing *any* descriptor of a file drops
/// every lock the process holds on it. SQLite keeps its own descriptors open for that reason;
/// the library must not open and close a database file beside a live connection either. When it
/// did (the plain-SQLite check of a second open), the first connection lost its shared lock, a
/// process closing its own connection then believed it was the last one, checkpointed and
/// deleted the write-ahead log under the first connection, and that connection's next commit
/// went to the deleted log: a healthy vault opened as truncated next time and was wiped
/// (`SecondOpenLockTests`). A caller asks here before opening the file itself.
enum OpenDatabaseFiles {
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private nonisolated(unsafe) static var counts: [Key: Int] = [:]
    private static let lock = NSLock()

    private static func key(_ path: String) -> Key? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Key(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Records a connection to the file at `path`; the token given back ends the record.
    static func register(_ path: String) -> AnyHashable? {
        guard let key = key(path) else { return nil }
        lock.withLock { counts[key, default: 0] += 1 }
        return AnyHashable(key)
    }

    static func unregister(_ token: AnyHashable?) {
        guard let key = token?.base as? Key else { return }
        lock.withLock {
            let left = (counts[key] ?? 1) - 1
            counts[key] = left > 0 ? left : nil
        }
    }

    /// Whether this process has a connection to the file at `path` now: then the file must not
    /// be opened and closed beside it.
    static func hasConnection(to path: String) -> Bool {
        guard let key = key(path) else { return false }
        return lock.withLock { counts[key] != nil }
    }
}
