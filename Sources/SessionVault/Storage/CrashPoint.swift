import Foundation

/// Named moments between two durable steps of a file operation, where a test host can stop
/// itself so that the test kills it exactly there: the crash state is then left by the real
/// code, not imitated by a test that moves files around. Nothing is armed outside the test
/// hosts, and an unarmed point costs one lock and a nil check.
package enum CrashPoint: String, Sendable, CaseIterable {
    /// A rekey's header says "rekey pending" durably and the re-encrypted copy (`-rekey`) is
    /// complete and synced; the copy has not taken the database's name yet.
    case rekeySwitched = "rekey-switched"
    /// A migration's SQL and its bookkeeping row are written in its transaction, which has not
    /// committed (reached once per migration applied).
    case migrationUncommitted = "migration-uncommitted"

    private nonisolated(unsafe) static var handler: (@Sendable (CrashPoint) -> Void)?
    private static let lock = NSLock()

    /// Calls `handler` at every point reached from now on (a test host prints the point and
    /// waits to be killed).
    package static func arm(_ handler: @escaping @Sendable (CrashPoint) -> Void) {
        lock.withLock { Self.handler = handler }
    }

    /// Marks the point as reached.
    func reach() {
        let handler = Self.lock.withLock { Self.handler }
        handler?(self)
    }
}
