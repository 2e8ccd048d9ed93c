import BenchFixtures
import Benchmark
import Foundation
import SessionVault
import SessionVaultTesting

// The suite. Names are `<figure>.<subject>[.<variant>]`; Benchmarks/report.py turns one run's
// results into the ratios of the table. A name ending in `.xN` runs N operations per
// iteration (report.py divides by N). Vault and baseline of a figure run back to back, on copies
// of the same fixture, in the same process.

/// Pages the scan reported (verify) or that the checked file holds (integrity_check).
let pagesScanned = BenchmarkMetric.custom("pagesScanned", polarity: .prefersLarger, useScalingFactor: false)
/// Pages in the file, from its size: the per-page denominator for both sides of the verify figure.
let filePages = BenchmarkMetric.custom("filePages", polarity: .prefersSmaller, useScalingFactor: false)
/// Refresh requests the local token server received during one iteration.
let networkCalls = BenchmarkMetric.custom("networkCalls", polarity: .prefersSmaller, useScalingFactor: false)
/// Callers that ended on the home screen during one single-flight iteration.
let homeOutcomes = BenchmarkMetric.custom("homeOutcomes", polarity: .prefersLarger, useScalingFactor: false)
/// Vault bytes (database + sidecars) before and after the size runs.
let bytesBefore = BenchmarkMetric.custom("bytesBefore", polarity: .prefersSmaller, useScalingFactor: false)
let bytesAfter = BenchmarkMetric.custom("bytesAfter", polarity: .prefersSmaller, useScalingFactor: false)

/// Concurrent callers in the single-flight figure, and the server's answer delay.
let singleFlightCallers = 1_000
let refreshServerDelay: TimeInterval = 0.020

/// Registers a benchmark whose state is built by `setup` before its iterations and released by
/// teardown (so an open vault never outlives its benchmark and changes the next one's files).
func register<State>(
    _ name: String, _ configuration: Benchmark.Configuration = Benchmark.defaultConfiguration,
    setup: @escaping () async throws -> State,
    teardown: @escaping (State) async -> Void = { _ in },
    body: @escaping (Benchmark, State) async throws -> Void
) {
    let box = Box<State?>(nil)
    Benchmark(
        name, configuration: configuration,
        closure: { (benchmark: Benchmark) async throws in
            guard let state = box.value else { throw RawDatabaseError(code: 0, message: "\(name): setup did not run") }
            try await body(benchmark, state)
        },
        setup: {
            box.value = try await setup()
        },
        teardown: {
            if let state = box.value { await teardown(state) }
            box.value = nil
        })
}

struct OpenVault: @unchecked Sendable {
    let fixture: VaultFixture
    let vault: Vault
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )
    // Custom metrics are exported only when the configuration lists them.
    // Exactly 100 iterations, however long they take.
    let sizeRun = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, bytesBefore, bytesAfter], warmupIterations: 0,
        maxDuration: .seconds(900), maxIterations: 100)
    let scan = Benchmark.Configuration(metrics: Benchmark.defaultConfiguration.metrics + [pagesScanned, filePages])

    // MARK: 1 + 6. launch: Vault.open (fresh connection) + snapshot + tokens + decide + close

    for sessions in [1, 1_000, 10_000] {
        register(
            "launch.vault.\(sessions)",
            setup: { () async throws -> (VaultFixture, InMemoryKeyProvider) in
                let fixture = try await FixtureStore.shared.fixture(sessions: sessions)
                return (fixture, try fixture.keyProvider())
            },
            body: { _, state in
                let vault = try Vault.open(at: state.0.vaultPath, keyProvider: state.1, create: false)
                let snapshot = try await vault.snapshot()
                let access = try await vault.accessToken()
                let refresh = try await vault.refreshToken()
                let path = ResumeDecision.decide(snapshot, now: Date(), policy: vault.policy)
                await vault.close()
                blackHole(access)
                blackHole(refresh)
                blackHole(path)
            })
    }
    for (name, variant) in [
        ("launch.unencrypted.1", PlainLaunch.Variant.unencrypted), ("launch.naive.1", .naive),
        ("launch.enginefloor.1", .rawKey)
    ] {
        register(
            name,
            setup: {
                try await PlainLaunch.make(fixture: FixtureStore.shared.fixture(sessions: 1), variant: variant)
            },
            body: { _, launch in
                blackHole(try launch.run(now: Date(), policy: ResumePolicy()))
            })
    }
    register(
        "launch.unencrypted.10000",
        setup: {
            try await PlainLaunch.make(fixture: FixtureStore.shared.fixture(sessions: 10_000), variant: .unencrypted)
        },
        body: { _, launch in
            blackHole(try launch.run(now: Date(), policy: ResumePolicy()))
        })

    // MARK: 2 + 6. rotate: one durable transaction with a new token pair

    for sessions in [1, 1_000, 10_000] {
        register(
            "rotate.vault.\(sessions)",
            setup: {
                let fixture = try await FixtureStore.shared.fixture(sessions: sessions)
                return OpenVault(fixture: fixture, vault: try fixture.open())
            },
            teardown: { state in
                await state.vault.close()
            },
            body: { benchmark, state in
                // Building the response (parsing, locked-memory token copies) belongs to the network
                // layer, not to the durable write being measured.
                let response = try TokenFactory.refreshed(benchmark.currentIteration)
                benchmark.startMeasurement()
                try await state.vault.rotate(response)
                benchmark.stopMeasurement()
                withExtendedLifetime(response) {}
            })
    }
    for (name, rawKey) in [("rotate.unencrypted.1", false), ("rotate.enginefloor.1", true)] {
        register(
            name,
            setup: {
                let fixture = try await FixtureStore.shared.fixture(sessions: 1)
                return try rawKey ? PlainRotator(path: fixture.rawKeyPath, rawKey: fixture.keys.databaseRawKey) : PlainRotator(path: fixture.plainPath)
            },
            body: { benchmark, rotator in
                let suffix = UUID().uuidString
                let refresh = "v1.refresh-\(suffix)"
                let access = "opaque-access-\(suffix)"
                benchmark.startMeasurement()
                try rotator.rotate(refresh: refresh, access: access, now: Int64(Date().timeIntervalSince1970 * 1000))
            })
    }
    register(
        "rotate.fsyncfloor",
        setup: {
            try await FsyncFloor(directory: FixtureStore.shared.fixture(sessions: 1).directory)
        },
        body: { _, floor in
            try floor.write()
        })

    // MARK: 3. touch: coalesced in memory, amortized over a user interacting every 100 ms

    register(
        "touch.vault.x1000",
        setup: {
            let fixture = try await FixtureStore.shared.fixture(sessions: 1, name: "touch")
            return OpenVault(fixture: fixture, vault: try fixture.open(clock: SteppingClock(step: 0.1).function))
        },
        teardown: { state in
            await state.vault.close()
        },
        body: { _, state in
            for _ in 0..<1_000 { try await state.vault.touch() }
        })
    register(
        "touch.vault.flush",
        setup: {
            // Every touch 20 s after the previous one: each call writes (no coalescing).
            let fixture = try await FixtureStore.shared.fixture(sessions: 1, name: "touch")
            return OpenVault(fixture: fixture, vault: try fixture.open(clock: SteppingClock(step: 20).function))
        },
        teardown: { state in
            await state.vault.close()
        },
        body: { _, state in
            try await state.vault.touch()
        })
    register(
        "touch.unencrypted.x100",
        setup: {
            try await PlainToucher(path: FixtureStore.shared.fixture(sessions: 1, name: "touch").plainPath)
        },
        body: { _, toucher in
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            for offset in 0..<100 { try toucher.touch(now: now + Int64(offset)) }
        })

    // MARK: 4. verify: full scan, per page

    for sessions in [1, 10_000] {
        register(
            "verify.vault.\(sessions)", scan,
            setup: {
                let fixture = try await FixtureStore.shared.fixture(sessions: sessions)
                return OpenVault(fixture: fixture, vault: try fixture.open())
            },
            teardown: { state in
                await state.vault.close()
            },
            body: { benchmark, state in
                let report = try await state.vault.verify()
                benchmark.stopMeasurement()
                let size = (try? FileManager.default.attributesOfItem(atPath: state.fixture.vaultPath))?[.size] as? NSNumber
                benchmark.measurement(pagesScanned, report.pagesScanned)
                benchmark.measurement(filePages, (size?.intValue ?? 0) / 4096)
                if !report.intact { throw RawDatabaseError(code: 0, message: "verify found \(report.findings.count) findings in a healthy fixture") }
            })
        // A fresh read-only connection per scan, like the vault's verifier: a connection that has
        // the pages cached already would check its cache, not the file.
        register(
            "verify.unencrypted.\(sessions)", scan,
            setup: {
                try await FixtureStore.shared.fixture(sessions: sessions).plainPath
            },
            body: { benchmark, path in
                let database = try RawDatabase(path: path, readOnly: true)
                let check = try database.prepare("PRAGMA integrity_check")
                var result = ""
                while try check.step() { result += check.text(0) ?? "" }
                benchmark.stopMeasurement()
                guard result == "ok" else { throw RawDatabaseError(code: 0, message: "integrity_check: \(result)") }
                let pages = Int(try database.scalarInt("PRAGMA page_count") ?? 0)
                benchmark.measurement(pagesScanned, pages)
                benchmark.measurement(filePages, pages)
            })
    }

    // MARK: 5. decide: the pure decision alone

    register(
        "decide.x1000",
        setup: { () async throws -> VaultSnapshot in
            let vault = try await FixtureStore.shared.fixture(sessions: 1).open()
            let snapshot = try await vault.snapshot()
            await vault.close()
            return snapshot
        },
        body: { _, snapshot in
            let now = Date()
            for _ in 0..<1_000 { blackHole(ResumeDecision.decide(snapshot, now: now, policy: ResumePolicy())) }
        })

    // MARK: 6. file size after 1,000,000 touches and 100,000 rotations
    //
    // 100 iterations of 10,000 touches (a user interacting every 100 ms: one coalesced write per
    // 150 touches) and 100 iterations of 1,000 rotations, each iteration one app session: open,
    // work, close. After each close the files are measured (the last close checkpoints and
    // removes the write-ahead log); report.py takes the largest size seen.

    for (name, perIteration) in [("size.touches.x10000", 10_000), ("size.rotations.x1000", 1_000)] {
        register(
            name, sizeRun,
            setup: { () async throws -> (VaultFixture, Int64, SteppingClock) in
                let fixture = try await VaultFixture.make(in: BenchPaths.directory(name), sessions: 1)
                return (fixture, fixture.vaultBytes(), SteppingClock(step: 0.1))
            },
            body: { benchmark, state in
                let (fixture, before, clock) = state
                if perIteration == 10_000 {
                    let vault = try fixture.open(clock: clock.function)
                    for _ in 0..<perIteration { try await vault.touch() }
                    await vault.close()
                } else {
                    let vault = try fixture.open()
                    for index in 0..<perIteration { try await vault.rotate(TokenFactory.refreshed(benchmark.currentIteration * perIteration + index)) }
                    await vault.close()
                }
                benchmark.stopMeasurement()
                benchmark.measurement(bytesBefore, Int(before))
                benchmark.measurement(bytesAfter, Int(fixture.vaultBytes()))
            })
    }

    // MARK: 7. single-flight: 1,000 concurrent resume() calls on an expired session

    registerSingleFlight()
}
