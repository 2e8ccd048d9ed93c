import BenchFixtures
import Benchmark
import Foundation
import SessionVault

/// State of the single-flight figure: a local token server, a vault and a refresher talking to it.
struct SingleFlightState: @unchecked Sendable {
    let server: LoopbackTokenServer
    let fixture: VaultFixture
    let vault: Vault
    let refresher: GoTrueRefresher
}

private func makeSingleFlightState(_ name: String) async throws -> SingleFlightState {
    let server = try LoopbackTokenServer(delay: refreshServerDelay)
    let fixture = try await FixtureStore.shared.fixture(sessions: 1, name: name)
    return SingleFlightState(
        server: server, fixture: fixture, vault: try fixture.open(),
        refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "bench-anon-key"))
}

private func closeSingleFlightState(_ state: SingleFlightState) async {
    await state.vault.close()
    state.server.stop()
}

/// Figure 7. `singleflight.refresh` is the refresh latency alone (one `GoTrueRefresher.refresh`
/// round trip to the server, which answers after `refreshServerDelay`); `singleflight.callers1000`
/// is the time from starting 1,000 concurrent `resume()` calls on an expired session until the
/// last one has its outcome; `singleflight.callers1` is one caller doing the same (refresh +
/// durable rotate), for reference.
func registerSingleFlight() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, networkCalls, homeOutcomes], warmupIterations: 2,
        maxDuration: .seconds(5), maxIterations: 60)

    register(
        "singleflight.refresh", configuration,
        setup: {
            try await makeSingleFlightState("singleflight-refresh")
        }, teardown: closeSingleFlightState,
        body: { benchmark, state in
            let token = try Token("v1.refresh-latency-probe-\(benchmark.currentIteration)")
            benchmark.startMeasurement()
            let refreshed = try await state.refresher.refresh(using: token)
            blackHole(refreshed)
        })

    // The floor of the harness itself: 1,000 child tasks awaiting one shared task that takes the
    // server's delay, no vault, no actor. What the last caller pays above the delay here is the
    // cost of waking 1,000 tasks on this machine, which no single-flight design can avoid.
    register(
        "singleflight.harnessfloor", configuration, setup: { () async throws -> Int in 0 },
        body: { _, _ in
            let shared = Task { () async -> Int in
                try? await Task.sleep(nanoseconds: UInt64(refreshServerDelay * 1_000_000_000))
                return 1
            }
            let total = await withTaskGroup(of: Int.self, returning: Int.self) { group in
                for _ in 0..<singleFlightCallers { group.addTask { await shared.value } }
                var sum = 0
                for await value in group { sum += value }
                return sum
            }
            blackHole(total)
        })
    register(
        "singleflight.sleep", configuration, setup: { () async throws -> Int in 0 },
        body: { _, _ in
            try? await Task.sleep(nanoseconds: UInt64(refreshServerDelay * 1_000_000_000))
        })

    for callers in [1, singleFlightCallers] {
        register(
            "singleflight.callers\(callers)", configuration,
            setup: {
                try await makeSingleFlightState("singleflight-\(callers)")
            }, teardown: closeSingleFlightState,
            body: { benchmark, state in
                // An expired session (access token already past its expiry), and a manager with no
                // refresh in flight: what a cold start after a long background finds.
                try await state.vault.store(TokenFactory.signIn(expiresIn: 0))
                let manager = ResumeManager(vault: state.vault, refresher: state.refresher)
                let callsBefore = state.server.requestCount
                benchmark.startMeasurement()
                let home = await withTaskGroup(of: Bool.self, returning: Int.self) { group in
                    for _ in 0..<callers {
                        group.addTask {
                            if case .home = await manager.resume() { return true }
                            return false
                        }
                    }
                    var count = 0
                    for await wentHome in group where wentHome { count += 1 }
                    return count
                }
                benchmark.stopMeasurement()
                benchmark.measurement(networkCalls, state.server.requestCount - callsBefore)
                benchmark.measurement(homeOutcomes, home)
            })
    }
}
