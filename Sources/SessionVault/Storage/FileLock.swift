import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on a sidecar file, held by the kernel for one open file
/// description (`flock`).
///
/// Why `flock` and not a lease row or `fcntl`: the kernel releases it the moment its holder
/// closes the file or dies (SIGKILL, a crash, iOS terminating an extension), and it does not time
/// out while a holder is paused (SIGSTOP, suspended, starved of CPU), so a lock held around a
/// network call cannot pass to a second holder while the first one's request is still out.
/// `fcntl` locks belong to the whole process (two vaults in one process would not exclude each
/// other, and closing any descriptor of the file drops them); `flock` locks belong to the open
/// file description, so each `FileLock` excludes every other one, in this process or another.
///
/// The lock file holds no data and is never deleted: a process that unlinked it while another
/// held it would let a third lock a new file of the same name, and both would think they hold
/// the lock.
final class FileLock: @unchecked Sendable {
    // @unchecked: the descriptor is fixed at init; flock calls on it are thread-safe, and the
    // `held` flag is only read and written under `mutex`.
    let path: String
    private let descriptor: Int32
    private let mutex = NSLock()
    private var held = false

    /// Opens (creating, mode 0600) the lock file at `path`. Refuses a symbolic link and anything
    /// that is not a regular file, without blocking on it (a FIFO would hang a plain open).
    init(path: String) throws(FileIOError) {
        self.path = path
        // The one checked open (a directory there is refused by name, not as "Is a directory").
        descriptor = try FileIO.openRegularFile(path, O_RDWR | O_CREAT)
    }

    deinit { close(descriptor) }

    /// Takes the lock if nobody holds it; false when another holder has it. Never blocks.
    /// - Parameter shared: a shared lock, which any number of holders may have at once and which
    ///   excludes only the exclusive one.
    func tryLock(shared: Bool = false) throws(FileIOError) -> Bool {
        mutex.lock()
        defer { mutex.unlock() }
        if held { return false }
        while flock(descriptor, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw FileIOError(operation: "flock", path: path, errno: errno)
        }
        held = true
        return true
    }

    /// Takes the lock, waiting for the holder to release it (or die) for at most `budget`
    /// seconds; false when it was still held then. Blocks the calling thread: for the short,
    /// synchronous sections (open, create, wipe), never around a network call.
    func lock(within budget: TimeInterval, shared: Bool = false) throws(FileIOError) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0, min(budget, 3600)) * 1_000_000_000)
        var pause: UInt32 = 1_000
        while true {
            if try tryLock(shared: shared) { return true }
            if DispatchTime.now().uptimeNanoseconds >= deadline { return false }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    /// Releases the lock (a no-op when not held).
    func unlock() {
        mutex.lock()
        defer { mutex.unlock() }
        guard held else { return }
        flock(descriptor, LOCK_UN)
        held = false
    }
}
