import Foundation
import Logging
import SessionVault

/// Appends the library's log lines (debug and above) to a file, so that a test whose helper
/// process answered something unexpected can show why. Stdout is the test's protocol and
/// stderr is merged into it, so neither can carry the log. The library's log lines carry
/// fingerprints, never tokens.
struct FileLogHandler: LogHandler {
    let handle: FileHandle
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    /// The logger for this process: to `$SESSIONVAULT_HOST_LOG_DIR/<pid>.log` when that is set,
    /// nil (the library logs nothing) otherwise.
    static func processLogger() -> Logger? {
        guard let directory = ProcessInfo.processInfo.environment["SESSIONVAULT_HOST_LOG_DIR"] else { return nil }
        let path = "\(directory)/\(getpid()).log"
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            return nil
        }
        return Logger(label: "VaultTestHost") { _ in FileLogHandler(handle: handle) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        handle.write(Data("\(event.level) \(event.message) \(fields)\n".utf8))
    }
}
