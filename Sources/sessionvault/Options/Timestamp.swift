import ArgumentParser
import Foundation

/// A time given on the command line (`--now`): ISO 8601 (`2026-01-01T09:00:00Z`, an offset
/// instead of `Z`, optional fractional seconds) or Unix seconds (`1767258000`, `1767258000.5`).
struct Timestamp: ExpressibleByArgument, Sendable {
    let date: Date

    init(date: Date) { self.date = date }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), text.first.map({ $0.isNumber || $0 == "-" }) == true {
            // Years 1 to 9999 only: the vault stores milliseconds in an Int64, and an instant
            // like 1e17 s is no time a device could be at.
            guard Self.unixSecondsRange.contains(seconds) else { return nil }
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

    /// 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59Z in Unix seconds (NaN is outside).
    static let unixSecondsRange: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    static var defaultCompletionKind: CompletionKind { .default }
}
