import ArgumentParser
import Foundation

/// `--now`: the time the command acts at, for replaying what a device would have decided.
struct ClockOptions: ParsableArguments {
    @Option(
        name: .customLong("now"),
        help: ArgumentHelp(
            "The time to act at: ISO 8601 (2026-01-01T09:00:00Z, fractions allowed) or Unix seconds. Default: the system clock.",
            valueName: "time"))
    var time: Timestamp?

    /// The given time, or the system clock. Read it once per run, so one run sees one instant.
    var now: Date { time?.date ?? Date() }
}
