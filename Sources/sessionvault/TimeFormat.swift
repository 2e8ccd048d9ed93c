import Foundation

/// How the CLI writes times: ISO 8601 in UTC, plus a short relative form for people.
enum TimeFormat {
    /// `2026-01-01T09:00:00Z`; fractions of a second only when there are any.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        formatter.formatOptions = whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `in 59m`, `3d 2h ago`, `now`: the distance from `now` to `date`.
    static func relative(_ date: Date, from now: Date) -> String {
        let seconds = Int(date.timeIntervalSince(now).rounded())
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

    /// `2026-01-01T09:00:00Z (in 59m)`, or `-` for no date.
    static func describe(_ date: Date?, now: Date) -> String {
        guard let date else { return "-" }
        return "\(iso(date)) (\(relative(date, from: now)))"
    }
}

extension TimeFormat {
    /// `2026-01-01T09:00:00.123Z`: always milliseconds, for file times in a custody record,
    /// where two files a few milliseconds apart must not read the same.
    static func evidence(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
