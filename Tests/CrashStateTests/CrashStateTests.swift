import Foundation
import SessionVaultTestSupport
import Testing

/// The crash-state explorer: records every durability-relevant call a workload makes on the vault's
/// files (Tests/CrashStates/interposer.c, preloaded into VaultCrashHost), builds the states a power
/// cut could leave at every sync point (`CrashStateBuilder`), and opens each distinct one with the
/// library and the CLI (`CrashStateChecker`).
///
/// Seeded and reproducible: CRASH_STATES_SEED (default 25) picks the sampled variants,
/// CRASH_STATES_CAP (default 200) bounds the states checked per workload, CRASH_STATES_WORKLOADS
/// (comma-separated names) runs only some workloads. A failing state is
/// kept under $TMPDIR/sessionvault-crash-states/<workload>-<state>/ and the failure prints the
/// CLI command that opens it. Run alone: `make crash-states`.
@Suite("Crash states: what a power cut leaves opens as the before or the after", .serialized)
struct CrashStateTests {
    static let workloads = ["creation", "store", "rotate", "sign-out", "biometric", "rekey", "wipe", "recovery"]

    static var seed: UInt64 { ProcessInfo.processInfo.environment["CRASH_STATES_SEED"].flatMap { UInt64($0) } ?? 25 }
    static var cap: Int { ProcessInfo.processInfo.environment["CRASH_STATES_CAP"].flatMap { Int($0) } ?? 200 }

    @Test("every crash state of the workload opens as its before or after", arguments: workloads)
    func workload(_ workload: String) async throws {
        // CRASH_STATES_WORKLOADS=wipe,rekey runs only those (the others pass untested).
        if let only = ProcessInfo.processInfo.environment["CRASH_STATES_WORKLOADS"], !only.split(separator: ",").contains(Substring(workload)) { return }
        if let sanitizer = Recorder.sanitizer {
            print("crash states: \(workload): not run under \(sanitizer) (see Recorder.sanitizer)")
            return
        }
        let cli = try BuiltExecutable.sessionvault.required()
        let recording = try await Recorder.record(workload)
        let builder = CrashStateBuilder(trace: recording.trace, seed: Self.seed &+ CrashStateBuilder.hash([workload: nil]))

        // The recorder and the replay agree with the kernel: every step applied gives the
        // directory the run left (the shared-memory index aside).
        let replayed = builder.finalFiles()
        var real: [String: [UInt8]?] = [:]
        let prefix = recording.trace.root + "/"
        for (index, path) in recording.finalFiles.paths.enumerated() where !path.hasSuffix("-shm") {
            real[String(path.dropFirst(prefix.count))] = recording.finalFiles.contents[index]
        }
        for path in recording.finalFiles.directories { real[String(path.dropFirst(prefix.count))] = .some(nil) }
        #expect(replayed.keys.sorted() == real.keys.sorted(), "\(workload): replayed files \(replayed.keys.sorted()) but the run left \(real.keys.sorted())")
        for (name, content) in real where replayed[name] != nil && replayed[name]! != content {
            Issue.record("\(workload): replaying the trace gives other bytes for \(name) than the run left")
        }

        let (states, candidates, distinct) = builder.states(cap: Self.cap)
        print(
            "crash states: \(workload): \(recording.trace.steps.count) recorded calls, \(builder.crashPoints.count) crash points, "
                + "\(candidates) states built, \(distinct) distinct, \(states.count) checked (seed \(Self.seed))")

        let checker = CrashStateChecker(workload: workload, cli: cli)
        let scratch = TemporaryDirectory("sessionvault-crash-check-\(workload)")
        // Two at a time: the machine this runs on has two cores, and each check starts the CLI.
        var failures: [(CrashStateBuilder.State, CrashStateChecker.Verdict)] = []
        await withTaskGroup(of: (Int, CrashStateChecker.Verdict).self) { group in
            var next = 0
            func add() {
                guard next < states.count else { return }
                let index = next, state = states[index]
                let expectation = CrashStateChecker.expectation(recording.trace, at: state.crashPoint)
                group.addTask { (index, await checker.check(state.files, expectation: expectation, scratch: scratch.file(state.identifier))) }
                next += 1
            }
            add(); add()
            while let (index, verdict) = await group.next() {
                if !verdict.failures.isEmpty { failures.append((states[index], verdict)) }
                add()
            }
        }
        for (state, verdict) in failures.sorted(by: { $0.0.crashPoint < $1.0.crashPoint }) {
            let kept = keep(state, workload: workload)
            let step = state.crashPoint - 1
            let during = CrashStateChecker.expectation(recording.trace, at: state.crashPoint).stepInProgress.map { "during step \($0)" } ?? "between steps"
            Issue.record(
                """
                \(workload), state \(state.identifier): power cut \(during), after recorded call \(step) (\(recording.trace.describe(step))), variant \(state.variant)
                  app: open \(verdict.appPath), resume \(verdict.outcome), holds \(verdict.observation); CLI: \(verdict.cliPath)
                  \(verdict.failures.joined(separator: "\n  "))
                  kept at \(kept): sessionvault resume --dry-run --vault \(kept)/vault.db --key-file \(kept)/\(verdict.keyName)
                  again: CRASH_STATES_SEED=\(Self.seed) CRASH_STATES_WORKLOADS=\(workload) make crash-states
                """)
        }
        print("crash states: \(workload): \(failures.count) of \(states.count) states break a rule")
    }

    /// Writes a failing state where it stays after the run, for the CLI to be pointed at.
    private func keep(_ state: CrashStateBuilder.State, workload: String) -> String {
        let directory = (NSTemporaryDirectory() as NSString).appendingPathComponent("sessionvault-crash-states/\(workload)-\(state.identifier)")
        try? FileManager.default.removeItem(atPath: directory)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? CrashStateBuilder.write(state.files, into: directory)
        return directory
    }
}
