import Foundation

extension Vault {
    /// A new stream of vault changes: this process's writes and, while anyone listens, changes
    /// committed by another process on the same file (noticed through `PRAGMA data_version`).
    /// Identical re-stores emit nothing.
    public func events() -> AsyncStream<VaultEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: VaultEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        startWatchingIfNeeded()
        return stream
    }

    /// Checks for changes another process committed and emits what changed. Called before every
    /// read and write, and periodically while anyone listens to `events()`.
    func reloadIfChangedElsewhere() throws(VaultError) {
        if try reopenIfReplacedElsewhere() { return }
        let connection = try liveConnection()
        let version: Int64
        do {
            version = try connection.scalarInt("PRAGMA data_version") ?? 0
        } catch {
            throw VaultError(underlying: error, files: files)
        }
        guard version != lastDataVersion else { return }
        let before = state
        try reloadState(from: connection)
        // Only after a successful reload: a failed one must be retried, not taken as current.
        // The reload's own version, read in its snapshot: a commit after `version` was read is
        // then either in the state or still ahead of `lastDataVersion`.
        lastDataVersion = state.dataVersion
        emitDifferences(from: before, to: state)
    }

    func emit(_ event: VaultEvent) {
        for continuation in subscribers.values { continuation.yield(event) }
    }

    func emitDifferences(from old: VaultState, to new: VaultState) {
        let oldSession = old.current?.session
        let newSession = new.current?.session
        var emitted = false
        if oldSession != nil && newSession == nil {
            emit(.signedOut)
            emitted = true
        } else if let newSession, newSession.id != oldSession?.id || newSession.tokenVersion != oldSession?.tokenVersion {
            // The session and its token version, not the fingerprints: a rekey (here or in
            // another process) fingerprints the same tokens again with the new key, and is no
            // token update. Every write of new tokens makes a new session or a new version.
            emit(.tokenUpdated(newSession.refreshTokenFingerprint))
            emitted = true
        }
        if let newSession, newSession.biometricEnabled != oldSession?.biometricEnabled {
            emit(.biometricChanged(newSession.biometricEnabled))
            emitted = true
        }
        if let newSession, newSession.activeSubject != oldSession?.activeSubject {
            emit(.activeSubjectChanged(newSession.activeSubject))
            emitted = true
        }
        if !emitted { emit(.changedElsewhere) }
    }

    private func removeSubscriber(_ id: UUID) {
        subscribers[id] = nil
        if subscribers.isEmpty {
            pollTask?.cancel()
            pollTask = nil
        }
    }

    func startWatchingIfNeeded() {
        guard pollTask == nil else { return }
        pollTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
                guard let self else { return }
                try? await self.reloadIfChangedElsewhere()
            }
        }
    }
}
