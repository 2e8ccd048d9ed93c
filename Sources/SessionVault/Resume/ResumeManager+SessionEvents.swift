import Foundation

extension ResumeManager {
    /// The session's changes for an event-driven UI: `initialSession` first, then `signedIn`,
    /// `tokenRefreshed` and `signedOut` (with why) as they happen in this process or in another
    /// one using the same vault. The sequence ends at once when the vault cannot be opened
    /// (ask again after `resume()` answered). It does its work while the app iterates it, and
    /// nothing of it runs once the app stops.
    public func sessionEvents() -> SessionEventSequence {
        SessionEventSequence(vault: try? self.vault)
    }
}

/// A change of the session as a UI sees it (`ResumeManager.sessionEvents()`), from this process
/// or another one using the same vault. Never carries a token: sessions show fingerprints only.
public enum SessionEvent: Sendable, Equatable, CustomStringConvertible {
    /// The first event of every stream: the session current when the app subscribed, nil when
    /// there is none.
    case initialSession(Session?)
    /// A new session became current (a sign-in, here or in another process).
    case signedIn(Session)
    /// The current session's tokens were replaced by a refresh.
    case tokenRefreshed(Session)
    /// The session ended. `reason` is the exact one, `cause` who or what ended it, and
    /// `showExpiredMessage` whether to tell the user "your session has expired".
    case signedOut(reason: MissingReason, cause: SessionEndCause, showExpiredMessage: Bool)

    /// The case and what it carries; sessions as their one-line description.
    public var description: String {
        switch self {
        case .initialSession(let session): return "initialSession(\(session.map(\.description) ?? "none"))"
        case .signedIn(let session): return "signedIn(\(session))"
        case .tokenRefreshed(let session): return "tokenRefreshed(\(session))"
        case .signedOut(let reason, let cause, let message):
            return "signedOut(\(reason.code), \(cause.rawValue)\(message ? ", show expired message" : ""))"
        }
    }
}

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
