import Foundation
import SessionVault

/// Where the benchmark files live: `$SESSIONVAULT_BENCH_DIR`, else `Benchmarks/.build/bench-data`.
/// Never /tmp: that may be a RAM disk here or elsewhere, and an fsync there measures nothing.
package enum BenchPaths {
    package static let root: String = {
        if let configured = ProcessInfo.processInfo.environment["SESSIONVAULT_BENCH_DIR"], !configured.isEmpty {
            return configured
        }
        // #filePath: …/Benchmarks/Sources/BenchFixtures/BenchSupport.swift
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/bench-data").path
    }()

    package static func directory(_ name: String) -> String { root + "/" + name }
}

/// The fixtures, built once per benchmark process and shared by the benchmarks that only read
/// them (launch, verify) or whose writes keep their shape (rotate: the audit log stays at its cap).
package actor FixtureStore {
    package static let shared = FixtureStore()
    private var built: [String: VaultFixture] = [:]

    /// The fixture with `sessions` stored sessions; `name` gives a benchmark its own copy.
    package func fixture(sessions: Int, name: String? = nil) async throws -> VaultFixture {
        let key = name ?? "sessions-\(sessions)"
        if let fixture = built[key] { return fixture }
        let fixture = try await VaultFixture.make(in: BenchPaths.directory(key), sessions: sessions)
        built[key] = fixture
        return fixture
    }
}

/// A clock that moves forward by `step` on every reading: drives `touch()` as a user who
/// interacts every `step` seconds would, without waiting for real time to pass.
package final class SteppingClock: @unchecked Sendable {
    // Sendable: `now` is only touched while holding `lock`.
    private let lock = NSLock()
    private var now: Date
    package let step: TimeInterval

    package init(start: Date = Date(), step: TimeInterval) {
        self.now = start
        self.step = step
    }

    package func read() -> Date {
        lock.withLock {
            now = now.addingTimeInterval(step)
            return now
        }
    }

    package var function: @Sendable () -> Date { { [self] in read() } }
}

/// Holds a non-Sendable value for a benchmark whose closure runs on one thread at a time.
package final class Box<Value>: @unchecked Sendable {
    package var value: Value
    package init(_ value: Value) { self.value = value }
}
