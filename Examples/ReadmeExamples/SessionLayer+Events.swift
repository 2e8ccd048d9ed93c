import SessionVault

extension SessionLayer {
    /// Keeps another runtime (a JS side, an extension's UI) in sync. Never carries a token.
    func forwardEvents(to send: @Sendable (String, String?) -> Void) async throws {
        for await event in try await manager.vault.events() {
            switch event {
            case .tokenUpdated(let fingerprint):  send("tokenUpdated", fingerprint?.hex)
            case .signedOut:                      send("signedOut", nil)
            case .wiped(let kind):                send("wiped", kind?.rawValue)
            case .biometricChanged(let on):       send("biometricChanged", on ? "on" : "off")
            case .activeSubjectChanged(let s):    send("activeSubjectChanged", s)
            case .changedElsewhere:               send("changedElsewhere", nil)
            }
        }
    }
}
