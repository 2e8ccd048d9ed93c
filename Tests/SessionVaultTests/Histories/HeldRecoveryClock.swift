import Foundation
import Logging
import SessionVaultTestSupport

/// The clock of an actor held right before its recovery wipe (issue 26, the stale-recovery race;
/// in-process, as `VaultTestHost resume-held` does it across processes): armed when the manager
/// logs "vault corrupted", the next read of the clock (the `now` handed to the wipe) tells the
/// runner `.held` and blocks until the runner releases it. Blocking is bounded (30 s), so a
/// runner that forgot to release cannot hang the suite; that shows as a violation instead.
final class HeldRecoveryClock: @unchecked Sendable {
    // @unchecked: `lock` guards `armed` and `held`.
    enum Signal: Sendable { case held, finished }

    private let lock = NSLock()
    private var armed = false
    private var held = false
    private let release = DispatchSemaphore(value: 0)
    private let base: ManualClock
    let signals: AsyncStream<Signal>
    private let continuation: AsyncStream<Signal>.Continuation

    init(base: ManualClock) {
        self.base = base
        (signals, continuation) = AsyncStream<Signal>.makeStream()
    }

    func arm() { lock.withLock { armed = true } }

    /// Whether the clock ever held its reader.
    var didHold: Bool { lock.withLock { held } }

    func now() -> Date {
        let hold = lock.withLock { () -> Bool in
            guard armed, !held else { return false }
            held = true
            return true
        }
        if hold {
            continuation.yield(.held)
            _ = release.wait(timeout: .now() + 30)
        }
        return base.now
    }

    /// Lets the held reader go on.
    func open() { release.signal() }

    /// Told by the runner when the held call returned (whether or not it was held).
    func finished() { continuation.yield(.finished) }

    var function: @Sendable () -> Date { { [self] in now() } }
}

/// Arms a `HeldRecoveryClock` at the manager's "vault corrupted" line; passes nothing on.
struct RecoveryArmingLogHandler: LogHandler {
    let clock: HeldRecoveryClock
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
             file: String, function: String, line: UInt) {
        if message.description == "vault corrupted" { clock.arm() }
    }
}
