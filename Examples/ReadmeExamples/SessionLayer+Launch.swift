import SessionVault

extension SessionLayer {
    /// On every launch and every return to the foreground.
    func launch() async -> Screen {
        switch await manager.resume() {
        case .home(let session):                     return .home(session)
        case .login(_, let showExpiredMessage):      return .login(expiredMessage: showExpiredMessage)
        case .locked:                                return .unlock
        case .offline(let session, let retryAfter):  return .homeOffline(session, retryAfter: retryAfter)
        case .renewalRefused(let session, _, let retryAfter): return .renewalRefused(session, retryAfter: retryAfter)
        case .unavailable(let retryAfter, _):        return .retry(after: retryAfter)
        }
    }
}
