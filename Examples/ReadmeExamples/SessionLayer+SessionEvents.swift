import SessionVault

extension SessionLayer {
    /// An event-driven UI: the session as it changes, here or in another process.
    func followSession(show: @Sendable (Screen) -> Void) async {
        for await event in await manager.sessionEvents() {
            switch event {
            case .initialSession(let session?), .signedIn(let session): show(.home(session))
            case .initialSession(nil):                                  show(.login(expiredMessage: false))
            case .tokenRefreshed:                                       break   // nothing to show
            case .signedOut(_, _, let showExpiredMessage):              show(.login(expiredMessage: showExpiredMessage))
            }
        }
    }
}
