import SessionVault

/// What the app shows next.
enum Screen: Equatable {
    case home(Session)
    case login(expiredMessage: Bool)            // "Your session has expired" when true
    case unlock                                 // your PIN or password screen, then resumeAfterUnlock()
    case homeOffline(Session, retryAfter: Double)
    case renewalRefused(Session, retryAfter: Double)  // "We could not renew your session: sign in again?"
    case retry(after: Double)                   // keystore locked, file busy: never a sign-out
}
