import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Histories, not examples: seeded random histories of the session lifecycle (an app and two
/// extensions on one vault, a GoTrue-shaped server with faults and revocations, a clock that moves
/// forward, back and stands still, races between a refresh and a sign-out), each checked after
/// every step against the server's truth and a reference model of the resume rules. A failure
/// prints its seed and a shrunk step list; `HISTORY_SEED=n make histories` replays one
/// (`HISTORY_KEEP=<folder>` keeps a copy of its vault's files). `HISTORY_COUNT` (default 200) and
/// `HISTORY_STEPS` (`20-40`, or one number) size a run; `HISTORY_FIRST_SEED` (default 1) moves the
/// window of seeds (`make histories-soak`).
@Suite("Session histories: seeded, model-checked", .serialized, .timeLimit(.minutes(30)))
struct SessionHistoryTests {
    struct Config {
        var seeds: [UInt64]
        var steps: ClosedRange<Int>
        var verbose: Bool

        static func fromEnvironment() -> Config {
            let env = ProcessInfo.processInfo.environment
            var steps = 20...40
            if let text = env["HISTORY_STEPS"] {
                let parts = text.split(separator: "-").compactMap { Int($0) }
                if parts.count == 2, parts[0] >= 1, parts[0] <= parts[1] { steps = parts[0]...parts[1] }
                if parts.count == 1, parts[0] >= 1 { steps = parts[0]...parts[0] }
            }
            if let seed = env["HISTORY_SEED"].flatMap({ UInt64($0) }) { return Config(seeds: [seed], steps: steps, verbose: true) }
            let count = env["HISTORY_COUNT"].flatMap { Int($0) }.map { max(1, min($0, 1_000_000)) } ?? 200
            let first = env["HISTORY_FIRST_SEED"].flatMap { UInt64($0) } ?? 1
            return Config(seeds: (0..<UInt64(count)).map { first &+ $0 }, steps: steps, verbose: false)
        }
    }

    static func history(seed: UInt64, steps: ClosedRange<Int>) -> [HistoryStep] {
        var rng = SeededGenerator(seed: seed)
        return HistoryStep.generate(count: Int.random(in: steps, using: &rng), using: &rng)
    }

    /// Runs `steps`; the violations (empty: it passed) and the run for its trace.
    static func run(seed: UInt64, _ steps: [HistoryStep]) async throws -> HistoryRun {
        let run = try HistoryRun(seed: seed, steps: steps, lifetime: HistoryRun.lifetime(forSeed: seed))
        _ = await run.run()
        return run
    }

    /// Drops steps while the history still fails (any violation): from the end, one at a time,
    /// then again until nothing more can go.
    static func shrink(seed: UInt64, _ steps: [HistoryStep]) async throws -> HistoryRun {
        var best = try await run(seed: seed, steps)
        var changed = true
        while changed {
            changed = false
            var index = best.steps.count - 1
            while index >= 0 {
                var candidate = best.steps
                candidate.remove(at: index)
                let attempt = try await run(seed: seed, candidate)
                if !attempt.violations.isEmpty {
                    best = attempt
                    changed = true
                }
                index -= 1
                index = min(index, best.steps.count - 1)
            }
        }
        return best
    }

    @Test("every seeded history keeps the invariants (HISTORY_SEED replays one)")
    func seededHistories() async throws {
        let config = Config.fromEnvironment()
        let started = Date()
        var stepsRun = 0
        for (number, seed) in config.seeds.enumerated() {
            let steps = Self.history(seed: seed, steps: config.steps)
            let run = try await Self.run(seed: seed, steps)
            stepsRun += steps.count
            if config.verbose {
                let lifetime = HistoryRun.lifetime(forSeed: seed).map { "\($0) s" } ?? "none stated"
                print("history seed \(seed), access lifetime \(lifetime):\n  " + run.trace.joined(separator: "\n  "))
                print("  " + run.summary)
                if let keep = ProcessInfo.processInfo.environment["HISTORY_KEEP"] { await run.keepVault(at: keep) }
            }
            guard !run.violations.isEmpty else { continue }
            let shrunk = try await Self.shrink(seed: seed, steps)
            let lifetime = HistoryRun.lifetime(forSeed: seed).map { "\($0) s" } ?? "none stated"
            let report = """
                history seed \(seed) failed (history \(number + 1) of this run, access lifetime \(lifetime)): \(run.violations.joined(separator: "; "))
                shrunk from \(steps.count) to \(shrunk.steps.count) steps: \(shrunk.violations.joined(separator: "; "))
                  \(shrunk.trace.joined(separator: "\n  "))
                replay: HISTORY_SEED=\(seed) make histories
                """
            print(report)
            Issue.record(Comment(rawValue: report))
            return
        }
        print("histories: \(config.seeds.count) histories, \(stepsRun) steps, 0 violations, \(Int(Date().timeIntervalSince(started))) s")
    }
}
