import ArgumentParser
import Foundation

/// A time given on the command line (`--now`): ISO 8601 (`2026-01-01T09:00:00Z`, an offset
/// instead of `Z`, optional fractional seconds) or Unix seconds (`1767258000`, `1767258000.5`).
struct Timestamp: ExpressibleByArgument, Sendable {
    let date: Date

    init(date: Date) { self.date = date }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds.isFinite, text.first.map({ $0.isNumber || $0 == "-" }) == true {
            date = Date(timeIntervalSince1970: seconds)
            return
        }
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds]] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let parsed = formatter.date(from: text) {
                date = parsed
                return
            }
        }
        return nil
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
