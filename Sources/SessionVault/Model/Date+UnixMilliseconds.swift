import Foundation

extension Date {
    /// A date from Unix milliseconds (the vault's stored time unit).
    init(unixMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000) }

    /// Unix milliseconds, rounded down; saturating, so a clock set absurdly far off cannot trap.
    var unixMilliseconds: Int64 { UnixMilliseconds.clamped(timeIntervalSince1970 * 1000) }
}
