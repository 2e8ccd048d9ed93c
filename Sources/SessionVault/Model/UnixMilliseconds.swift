import Foundation

/// Conversions into the vault's stored time unit (Unix milliseconds) that never trap.
///
/// The inputs come from outside (a server's lifetimes and clock, the app's clock and policy), so
/// a plain `* 1000`, `+` or `Int64(Double)` could overflow and kill the process. Every result
/// saturates at ±`Int64.max` instead (NaN counts as 0), which the resume decision reads as "far
/// past" or "far future"; the token response's own range check refuses absurd values earlier.
enum UnixMilliseconds {
    /// `seconds * 1000`, saturating.
    static func from(seconds: Int64) -> Int64 {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard overflow else { return product }
        return seconds < 0 ? -Int64.max : Int64.max
    }

    /// `seconds * 1000`, rounded to the nearest millisecond, saturating; NaN gives 0.
    static func from(seconds: Double) -> Int64 {
        clamped((seconds * 1000).rounded())
    }

    /// `milliseconds`, rounded down, saturating; NaN gives 0.
    static func clamped(_ milliseconds: Double) -> Int64 {
        guard !milliseconds.isNaN else { return 0 }
        // Double(Int64.max) rounds up to 2^63, which Int64 cannot hold: compare against it
        // exclusively and take the bound itself beyond.
        if milliseconds >= Double(Int64.max) { return Int64.max }
        if milliseconds <= -Double(Int64.max) { return -Int64.max }
        return Int64(exactly: milliseconds.rounded(.down)) ?? 0
    }

    /// `a + b`, saturating at ±`Int64.max`.
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        guard overflow else { return max(total, -Int64.max) }
        return b < 0 ? -Int64.max : Int64.max
    }
}

extension Date {
    /// A date from Unix milliseconds (the vault's stored time unit).
    init(unixMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000) }

    /// Unix milliseconds, rounded down; saturating, so a clock set absurdly far off cannot trap.
    var unixMilliseconds: Int64 { UnixMilliseconds.clamped(timeIntervalSince1970 * 1000) }
}
