import Foundation

/// How the CLI writes times: one form for every time it prints, in text and JSON alike, plus a
/// short relative form for people.
///
/// The one form is ISO 8601 in UTC with exactly three fractional digits,
/// `2026-01-01T09:00:00.000Z`: always the same width, so a column of times lines up and sorts
/// as text in time order, and a whole-second `--now` reads like a time from the system clock.
/// Fractions below a millisecond are cut, never rounded, so two times in order stay in order
/// (a file time a few microseconds before midnight never reads as the next day).
enum TimeFormat {
    /// `2026-01-01T09:00:00.000Z`. Years outside 0001...9999 (a vault may hold any Int64
    /// milliseconds) get ISO 8601's expanded form with a sign, `+292278994-08-17T07:12:55.807Z`,
    /// rather than a trap or a wrong date.
    static func iso(_ date: Date) -> String {
        // A time the vault stored as whole milliseconds comes back as seconds a hair off
        // (1.001 s is not a binary fraction): within a few units in the last place it is that
        // millisecond, not the one before.
        let exact = date.timeIntervalSince1970 * 1000, nearest = exact.rounded()
        let scaled = (exact - nearest).magnitude <= 4 * exact.ulp ? nearest : exact.rounded(.down)
        // Beyond Int64 (only a stored Int64.max rounds up to 2^63) or NaN the conversion would
        // trap: clamped to the nearest representable millisecond instead.
        let milliseconds = Int64(exactly: scaled) ?? (scaled.isNaN ? 0 : (scaled > 0 ? Int64.max : Int64.min))
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let hour = millisecondOfDay / 3_600_000, minute = millisecondOfDay % 3_600_000 / 60_000
        let second = millisecondOfDay % 60_000 / 1000, millisecond = millisecondOfDay % 1000
        let yearText = (1...9999).contains(year) ? pad(year, 4) : (year < 0 ? "-" : "+") + pad(year.magnitude, 4)
        return "\(yearText)-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))Z"
    }

    /// `in 59m`, `3d 2h ago`, `now`: the distance from `now` to `date`.
    static func relative(_ date: Date, from now: Date) -> String {
        let distance = date.timeIntervalSince(now).rounded()
        // Clamped: two far-apart times from outside (a vault's stored Int64) must not trap.
        let seconds = distance.isFinite ? Int(max(min(distance, 1e15), -1e15)) : 0
        if seconds == 0 { return "now" }
        let text = duration(abs(seconds))
        return seconds > 0 ? "in \(text)" : "\(text) ago"
    }

    /// `45s`, `59m`, `2h 5m`, `30d`, `3d 2h`.
    static func duration(_ seconds: Int) -> String {
        let days = seconds / 86_400, hours = seconds % 86_400 / 3600, minutes = seconds % 3600 / 60
        if days > 0 { return hours > 0 ? "\(days)d \(hours)h" : "\(days)d" }
        if hours > 0 { return minutes > 0 ? "\(hours)h \(minutes)m" : "\(hours)h" }
        if minutes > 0 { return "\(minutes)m" }
        return "\(seconds)s"
    }

    /// `2026-01-01T09:00:00.000Z (in 59m)`, or `-` for no date.
    static func describe(_ date: Date?, now: Date) -> String {
        guard let date else { return "-" }
        return "\(iso(date)) (\(relative(date, from: now)))"
    }

    // MARK: Calendar arithmetic

    /// Quotient and remainder rounded towards minus infinity (times before 1970 included).
    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor, remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01, by whole 400-year eras
    /// (146,097 days each), so it holds for any day an Int64 of milliseconds can name.
    private static func civilDate(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = daysSinceEpoch + 719_468  // days from 0000-03-01
        let (era, dayOfEra) = floorDivision(shifted, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func pad<Number: BinaryInteger>(_ value: Number, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
