import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the CLI's words go: results on stdout, errors and warnings on stderr, one line each.
/// Colour only when stdout is a terminal (and `NO_COLOR` is unset, `TERM` is not `dumb`), so
/// piped output and files stay plain.
struct Console: Sendable {
    let usesColour: Bool

    init() {
        let term = getenv("TERM").map { String(cString: $0) }
        usesColour = isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil && term != "dumb"
    }

    init(usesColour: Bool) { self.usesColour = usesColour }

    /// Writes `text` and a newline to stdout.
    func line(_ text: String = "") { Self.write(text + "\n", to: STDOUT_FILENO) }

    /// `text` in `style` when colour is on.
    func paint(_ text: String, _ style: Style?) -> String {
        guard usesColour, let style, !text.isEmpty else { return text }
        return style.apply(to: text)
    }

    /// A plain line (no colour) that quotes text from outside (a path, a subject): written with
    /// its control characters escaped (see `TerminalText`).
    func say(_ text: String) { line(TerminalText.escaped(text)) }

    /// One line on stderr: `Error: message`.
    func error(_ message: String) { Self.write("Error: \(Self.oneLine(message))\n", to: STDERR_FILENO) }

    /// One line on stderr: `Warning: message`.
    func warning(_ message: String) { Self.write("Warning: \(Self.oneLine(message))\n", to: STDERR_FILENO) }

    /// Messages come from errors that may quote multi-line SQL: keep them to one line.
    /// Control characters left (from a path or a subject quoted in the message) are escaped,
    /// never sent to the terminal (see `TerminalText`).
    static func oneLine(_ text: String) -> String {
        TerminalText.escaped(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
    }

    /// write(2) until every byte is out; unbuffered, so stdout and stderr stay in order.
    static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write($0, to: descriptor) }
    }

    /// write(2) of raw bytes, straight from the caller's memory (for the one secret the CLI
    /// prints, from locked memory). False when not every byte could be written.
    static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        do {
            try FileIO.writeAll(descriptor, bytes, path: "descriptor \(descriptor)")
            return true
        } catch {
            return false
        }
    }
}

extension Console {
    /// An ANSI SGR style for terminal output, applied only when colour is on.
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case boldRed = "1;31"
        case boldGreen = "1;32"

        /// `text` wrapped in this style's escape sequence and a reset.
        func apply(to text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }
    }
}
