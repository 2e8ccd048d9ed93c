import Foundation

/// The pieces the `description`s of the public types share, so they read alike: ISO 8601 UTC
/// times, shortened ids. Descriptions never include a token or a key (only fingerprints), and
/// leave out personal data such as email addresses and display names: apps log them.
enum DescriptionText {
    /// `2027-01-15T09:00:00Z`, or `-` for none.
    static func time(_ date: Date?) -> String {
        guard let date else { return "-" }
        return date.formatted(Date.ISO8601FormatStyle())
    }

    /// The first 8 characters of an id and an ellipsis: enough to match a log line to a row.
    static func short(_ id: String) -> String {
        id.count > 8 ? String(id.prefix(8)) + "…" : id
    }
}
