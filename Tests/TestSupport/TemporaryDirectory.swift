import Foundation

/// A fresh directory under the system temporary directory, for the files of one test.
///
/// Its lifetime, the same in every test target: the directory stays until the test process
/// exits, and is removed then (an `atexit` handler), never in `deinit`. Swift may release an
/// object right after its last use, which can be while a vault opened in the directory, a task
/// the test started, or a child process (VaultTestHost, VaultCrashHost, the CLI) still writes to
/// it; removal at exit is the one point at which no test can still need its files. (The copies
/// this type replaces differed: one removed at exit for that reason, two in `deinit`, which only
/// worked because each of their tests happened to use the value until it was done.) The cost is
/// disk space until the run ends: small files, a few megabytes for the whole suite.
///
/// A test process that is killed runs no exit handlers and leaves its directories behind; so
/// does `SESSIONVAULT_KEEP_TEST_DIRECTORIES=1`, on purpose, for a look at them after the run.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// - Parameter label: the start of the directory's name, to tell which test left it.
    public init(_ label: String = "sessionvault") {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
        Self.register(base)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Every regular file below the directory, sorted.
    public func allFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
        var files: [String] = []
        for case let relative as String in enumerator {
            let full = file(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(full) }
        }
        return files.sorted()
    }

    // The directories made by this process, removed by the exit handler; `lock` guards both.
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
        guard ProcessInfo.processInfo.environment["SESSIONVAULT_KEEP_TEST_DIRECTORIES"] != "1" else { return }
        let paths = lock.withLock { created }
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}
