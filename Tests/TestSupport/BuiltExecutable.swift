import Foundation

/// An executable of this package (VaultTestHost, VaultCrashHost, the `sessionvault` CLI) as
/// built beside the running tests, in the same scratch path: `.build/<triple>/debug`, and just
/// as well `.build-asan`, `.build-tsan` or `.build-sqlcipher4/swift`, so a sanitized or 4.x test
/// run starts children built the same way. No path is written in here; the search starts at the
/// test binary.
public struct BuiltExecutable: Sendable {
    /// The file name (`VaultTestHost`).
    public let name: String
    /// Where it is; nil when it was not built.
    public let path: String?

    /// The child process for the tests that need a second process or a SIGKILL.
    public static let vaultTestHost = BuiltExecutable("VaultTestHost")
    /// The child process the crash-safety tests kill in the middle of a write.
    public static let vaultCrashHost = BuiltExecutable("VaultCrashHost")
    /// The CLI, or the one at `SESSIONVAULT_CLI` when that is set (another build's CLI).
    public static let sessionvault = BuiltExecutable("sessionvault", overriddenBy: "SESSIONVAULT_CLI")

    /// Thrown when a test needs an executable that was not built.
    public struct NotBuilt: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "\(name) was not found next to the tests; build it (swift build --build-tests)" }
    }

    /// - Parameter variable: an environment variable that, when set, names the file to use
    ///   instead of searching.
    public init(_ name: String, overriddenBy variable: String? = nil) {
        self.name = name
        if let variable, let path = ProcessInfo.processInfo.environment[variable] {
            self.path = path
        } else {
            self.path = Self.search(name)
        }
    }

    /// The path, or `NotBuilt`.
    public func required() throws -> String {
        guard let path else { throw NotBuilt(name: name) }
        return path
    }

    /// The first directory holding an executable `name`, in the order the test runners need.
    /// Each group is only looked at when the ones before it found nothing: `Bundle.allBundles`
    /// leaks a little (suppressed in Tests/Sanitizers/lsan.supp), and on Linux it is not needed.
    private static func search(_ name: String) -> String? {
        let groups: [() -> [String]] = [
            // Linux: the tests are one executable, SessionVaultPackageTests.xctest, in the
            // scratch path's bin directory (as invoked, then with symbolic links resolved).
            {
                guard let first = CommandLine.arguments.first else { return [] }
                let url = URL(fileURLWithPath: first)
                return [url.deletingLastPathComponent().path, url.resolvingSymlinksInPath().deletingLastPathComponent().path]
            },
            { [Bundle.main.bundleURL.path, Bundle.main.bundleURL.deletingLastPathComponent().path] },
            // macOS: a runner (xctest, swiftpm-testing-helper) loads the .xctest bundle, which
            // lies in the bin directory.
            {
                Bundle.allBundles.filter { $0.bundlePath.hasSuffix(".xctest") }
                    .map { $0.bundleURL.deletingLastPathComponent().path }
            },
            // Beside a CLI named in SESSIONVAULT_CLI: that build's hosts.
            {
                guard let cli = ProcessInfo.processInfo.environment["SESSIONVAULT_CLI"] else { return [] }
                return [URL(fileURLWithPath: cli).deletingLastPathComponent().path]
            }
        ]
        for group in groups {
            if let found = group().map({ $0 + "/" + name }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                return found
            }
        }
        return nil
    }
}
