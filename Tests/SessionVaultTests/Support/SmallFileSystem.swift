import Foundation
import SessionVaultTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A real file system of a few MiB (a tmpfs mount; the tests run as root), so a test can leave
/// exactly so many bytes free and watch a write meet a full disk where it really would.
struct SmallFileSystem {
    let directory: TemporaryDirectory
    var path: String { directory.path }
    private var filler: String { directory.file("filler") }

    enum Failure: Error { case mount(String) }

    static func mount(megabytes: Int) async throws -> SmallFileSystem {
        let directory = TemporaryDirectory("sessionvault-smallfs")
        let result = try await Shell.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", directory.path])
        guard result.status == 0 else { throw Failure.mount(result.stderr) }
        return SmallFileSystem(directory: directory)
    }

    /// `mount(megabytes:)` for a caller that cannot wait asynchronously (an initializer).
    static func mountNow(megabytes: Int) throws -> SmallFileSystem {
        let directory = TemporaryDirectory("sessionvault-smallfs")
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0700", "tmpfs", directory.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { throw Failure.mount("mount exited \(mount.terminationStatus)") }
        return SmallFileSystem(directory: directory)
    }

    /// Detaches the mount at once (`umount -l`): it goes away when the last file open on it
    /// closes, so connections still open do not keep it mounted or fail the unmount.
    func detach() {
        let unmount = Process()
        unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
        unmount.arguments = ["-l", path]
        guard (try? unmount.run()) != nil else { return }
        unmount.waitUntilExit()
    }

    /// Bytes free for a new file right now.
    var freeBytes: Int {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return -1 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }

    /// Fills the file system until `bytes` are left (to the page, as tmpfs counts).
    func leave(_ bytes: Int) throws {
        let current = (try? FileManager.default.attributesOfItem(atPath: filler)[.size] as? Int) ?? 0
        let grow = freeBytes - bytes
        let target = max(0, current + grow)
        guard
            let handle = FileHandle(forWritingAtPath: filler)
                ?? {
                    _ = FileManager.default.createFile(atPath: filler, contents: nil)
                    return FileHandle(forWritingAtPath: filler)
                }()
        else { return }
        defer { try? handle.close() }
        if target < current { try handle.truncate(atOffset: UInt64(target)); return }
        try handle.seek(toOffset: UInt64(current))
        // Real blocks (tmpfs has no holes to cheat with): write the bytes.
        try handle.write(contentsOf: Data(count: target - current))
    }

    /// Gives all the space back.
    func freeAll() { try? FileManager.default.removeItem(atPath: filler) }

    func unmount() async {
        _ = try? await Shell.run("/bin/umount", [path])
    }
}
