import Foundation
import SessionVaultTestSupport

/// What one run of a command printed, and how it exited.
struct CLIResult: Sendable {
    let status: Int32
    let stdout: String
    let stderr: String
    /// Killed by a signal (a crash), not exited.
    let crashed: Bool

    /// The stdout parsed as a JSON object (nil when it is not one).
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    /// The non-empty stderr lines.
    var stderrLines: [Substring] { stderr.split(separator: "\n") }

    /// Whether stdout or stderr holds a fixture token (checked as a Bool so a failure message
    /// never quotes the token).
    var leaksToken: Bool { Fixtures.tokenMarkers.contains { stdout.contains($0) || stderr.contains($0) } }

    /// Whether the run ended the way a bad input should: exited (no signal, no backtrace) with a
    /// single `Error:` line on stderr.
    var isOneLineError: Bool {
        !crashed && !stderr.contains("Backtrac") && !stderr.contains("Fatal error")
            && stderrLines.count == 1 && stderrLines[0].hasPrefix("Error: ")
    }
}
