import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A private directory for one fuzzing process: the targets that read files (key, header,
/// tombstone, a whole vault) write each input there and let the library read it for real.
/// Created at 0700 under the system temporary directory; `FuzzTarget.finish()` removes it.
final class FuzzScratch: @unchecked Sendable {
    // @unchecked: set once at creation, then only read. libFuzzer calls a target from one thread.
    let directory: String

    static let shared = FuzzScratch()

    private init() {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("sessionvault-fuzz-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(
            atPath: base, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        directory = base
    }

    func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Replaces the file at `path` with `bytes`, mode 0600. No fsync: nothing here must survive
    /// a crash. False when it could not be written.
    @discardableResult
    func put(_ bytes: [UInt8], at path: String) -> Bool {
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
