import Foundation

/// A fresh directory under the system temporary directory, removed when the test process exits.
///
/// Not removed in `deinit`: Swift may release an object right after its last use, which can be
/// while a vault opened in that directory is still writing to it.
final class TemporaryDirectory: Sendable {
    let path: String

    init(_ label: String = "sessionvault") {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
        TemporaryDirectory.register(base)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var created: [String] = []
    nonisolated(unsafe) private static var installedCleanup = false

    private static func register(_ path: String) {
        lock.withLock {
            created.append(path)
            if !installedCleanup {
                installedCleanup = true
                atexit { TemporaryDirectory.removeAll() }
            }
        }
    }

    private static func removeAll() {
        let paths = lock.withLock { created }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
