import Foundation

extension ResumeManager {
    /// A new stream of session changes for an event-driven UI: `initialSession` first, then
    /// `signedIn`, `tokenRefreshed` and `signedOut` (with why) as they happen in this process or
    /// in another one using the same vault. The stream ends when the vault cannot be opened
    /// (subscribe again after `resume()` answered) or when the app stops iterating it.
    public func sessionEvents() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .bufferingNewest(64))
        let feed = Task { [weak self] in
            await self?.feedSessionEvents(continuation)
            continuation.finish()
        }
        continuation.onTermination = { _ in feed.cancel() }
        return stream
    }

    private func feedSessionEvents(_ continuation: AsyncStream<SessionEvent>.Continuation) async {
        guard let vault = currentVault() else { return }
        // Subscribed before the first read: a change right after it is still seen.
        let changes = await vault.events()
        var last = try? await vault.currentSession()
        continuation.yield(.initialSession(last))
        for await _ in changes {
            guard let snapshot = try? await vault.snapshot() else { continue }
            let now: Session?
            switch snapshot {
            case .session(let session, _, _): now = session
            case .empty(let reason):
                now = nil
                if last != nil, let cause = reason.endCause {
                    continuation.yield(.signedOut(reason: reason, cause: cause, showExpiredMessage: Self.showsExpiredMessage(reason)))
                }
            case .corrupted, .unavailable: continue
            }
            if let now {
                if now.id != last?.id {
                    continuation.yield(.signedIn(now))
                } else if now.tokenVersion != last?.tokenVersion {
                    continuation.yield(.tokenRefreshed(now))
                }
            }
            last = now
        }
    }
}
