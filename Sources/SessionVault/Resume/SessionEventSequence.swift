/// The session changes `ResumeManager.sessionEvents()` hands out, computed as the consumer asks
/// for them: no task of its own runs in the background, so nothing outlives the consumer's loop
/// (a background feed held the manager and its vault, and the vault's watch, for ever after the
/// consumer stopped listening).
public struct SessionEventSequence: AsyncSequence, Sendable {
    /// Each element is one change.
    public typealias Element = SessionEvent
    let vault: Vault?

    /// The iterator: `initialSession` first, then the changes as they happen.
    public func makeAsyncIterator() -> Iterator { Iterator(vault: vault) }

    /// Reads the vault's changes and turns them into session events.
    public struct Iterator: AsyncIteratorProtocol {
        let vault: Vault?
        private var changes: AsyncStream<VaultEvent>.Iterator?
        private var last: Session?
        private var pending: [SessionEvent] = []

        init(vault: Vault?) { self.vault = vault }

        /// The next change; nil when the vault could not be opened or its events ended.
        public mutating func next() async -> SessionEvent? {
            guard let vault else { return nil }
            guard var changes else {
                // Subscribed before the first read: a change right after it is still seen.
                self.changes = await vault.events().makeAsyncIterator()
                last = try? await vault.currentSession()
                return .initialSession(last)
            }
            while pending.isEmpty {
                guard await changes.next() != nil else { return nil }
                self.changes = changes
                await collect(from: vault)
            }
            return pending.removeFirst()
        }

        private mutating func collect(from vault: Vault) async {
            guard let snapshot = try? await vault.snapshot() else { return }
            let now: Session?
            switch snapshot {
            case .session(let session, _, _): now = session
            case .empty(let reason):
                now = nil
                if last != nil, let cause = reason.endCause {
                    pending.append(.signedOut(reason: reason, cause: cause, showExpiredMessage: ResumeManager.showsExpiredMessage(reason)))
                }
            case .corrupted, .unavailable: return
            }
            if let now {
                if now.id != last?.id {
                    pending.append(.signedIn(now))
                } else if now.tokenVersion != last?.tokenVersion {
                    pending.append(.tokenRefreshed(now))
                }
            }
            last = now
        }
    }
}
