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
    /// silent otherwise.
    static func processLogger() -> Logger {
        guard let directory = ProcessInfo.processInfo.environment["SESSIONVAULT_HOST_LOG_DIR"] else { return Vault.silentLogger }
        let path = "\(directory)/\(getpid()).log"
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            return Vault.silentLogger
        }
        return Logger(label: "VaultTestHost") { _ in FileLogHandler(handle: handle) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        let merged = metadata.merging(explicit ?? [:]) { $1 }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        handle.write(Data("\(level) \(message) \(fields)\n".utf8))
    }
}
