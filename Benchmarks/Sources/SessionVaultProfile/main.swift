import BenchFixtures
import Foundation
import SessionVault

// Runs one benchmark scenario in a loop, so a profiler sees only that scenario:
//
//   valgrind --tool=callgrind --toggle-collect='*measuredLoop*' \
//       .build/release/SessionVaultProfile launch-vault 200
//   strace -f -c .build/release/SessionVaultProfile launch-unencrypted 1000
//
// The fixture is built before the loop (outside `measuredLoop`); files go under
// $SESSIONVAULT_BENCH_DIR (default Benchmarks/.build/bench-data), directory "profile-<sessions>".

let scenarios = [
    "launch-vault", "launch-unencrypted", "launch-naive", "launch-enginefloor", "rotate-vault", "rotate-unencrypted", "verify-vault", "verify-unencrypted"
]
let arguments = CommandLine.arguments
guard arguments.count >= 3, scenarios.contains(arguments[1]), let iterations = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: SessionVaultProfile <\(scenarios.joined(separator: "|"))> <iterations> [sessions]\n".utf8))
    exit(64)
}
let scenario = arguments[1]
let sessions = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1

@inline(never)
func measuredLoop(_ iterations: Int, _ body: () async throws -> Void) async throws -> TimeInterval {
    let start = Date()
    for _ in 0..<iterations { try await body() }
    return Date().timeIntervalSince(start)
}

/// The scenario, run from a Task while the main thread waits: an `async` main would park the main
/// thread in dispatch_main, which valgrind 3.19 cannot follow (it dies with SIGSEGV).
func runScenario() async throws -> TimeInterval {
    let fixture = try await VaultFixture.make(in: BenchPaths.directory("profile-\(sessions)"), sessions: sessions)
    let elapsed: TimeInterval
    switch scenario {
    case "launch-vault":
        let keys = try fixture.keyProvider()
        elapsed = try await measuredLoop(iterations) {
            let vault = try Vault.open(at: fixture.vaultPath, keyProvider: keys, create: false)
            let snapshot = try await vault.snapshot()
            blackHoleValue(try await vault.accessToken())
            blackHoleValue(try await vault.refreshToken())
            blackHoleValue(ResumeDecision.decide(snapshot, now: Date(), policy: vault.policy))
            await vault.close()
        }
    case "launch-unencrypted", "launch-naive", "launch-enginefloor":
        // enginefloor: the raw-keyed copy of the vault file, the vault's pinned settings, no vault code.
        let variant: PlainLaunch.Variant = scenario == "launch-naive" ? .naive : scenario == "launch-enginefloor" ? .rawKey : .unencrypted
        let launch = try await PlainLaunch.make(fixture: fixture, variant: variant)
        elapsed = try await measuredLoop(iterations) { blackHoleValue(try launch.run(now: Date(), policy: ResumePolicy())) }
    case "rotate-vault":
        let vault = try fixture.open()
        let responses = try (0..<iterations).map { try TokenFactory.refreshed($0) }
        var index = 0
        elapsed = try await measuredLoop(iterations) {
            try await vault.rotate(responses[index])
            index += 1
        }
        await vault.close()
    case "rotate-unencrypted":
        let rotator = try PlainRotator(path: fixture.plainPath)
        elapsed = try await measuredLoop(iterations) {
            let suffix = UUID().uuidString
            try rotator.rotate(refresh: "v1.refresh-\(suffix)", access: "opaque-access-\(suffix)", now: Int64(Date().timeIntervalSince1970 * 1000))
        }
    case "verify-vault":
        let vault = try fixture.open()
        elapsed = try await measuredLoop(iterations) { blackHoleValue(try await vault.verify()) }
        await vault.close()
    default:  // verify-unencrypted
        let database = try RawDatabase(path: fixture.plainPath)
        elapsed = try await measuredLoop(iterations) {
            let check = try database.prepare("PRAGMA integrity_check")
            while try check.step() {}
        }
    }
    return elapsed
}

let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        let elapsed = try await runScenario()
        print("\(scenario) x\(iterations) (\(sessions) sessions): \(String(format: "%.1f", elapsed / Double(iterations) * 1_000_000)) µs per iteration")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("SessionVaultProfile: \(error)\n".utf8))
        exit(1)
    }
}
finished.wait()
