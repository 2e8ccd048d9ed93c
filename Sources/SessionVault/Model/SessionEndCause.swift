/// Why a session ended, in the words a UI needs: who or what ended it.
public enum SessionEndCause: String, Sendable, Equatable, Codable, CaseIterable {
    /// The user signed out (here or in another process of the app).
    case user
    /// The server ended it: the refresh token was rejected or spent, the server said the
    /// session is over (`SESSION_EXPIRED`, `AUTH_REQUIRED`), or it refused the scope.
    case serverEnded
    /// Its lifetime ran out: the refresh token expired.
    case expired
    /// A rule of the app or the device ended it: the tenant's absolute lifetime, a changed
    /// biometric enrolment.
    case policy
    /// The store could not be trusted and was wiped (the tombstone says why).
    case storeReset
}

extension MissingReason {
    /// Who or what ended the session, for a UI; nil for a vault that never held one.
    public var endCause: SessionEndCause? {
        switch self {
        case .neverSignedIn: return nil
        case .signedOut: return .user
        case .refreshRejected, .refreshInterrupted, .sessionExpired, .authRequired, .scopeRejected, .refreshedForAnotherSubject:
            return .serverEnded
        case .refreshTokenExpired: return .expired
        case .absoluteLifetimePassed, .biometryChanged: return .policy
        case .wipedAfterCorruption: return .storeReset
        // The device no longer has what the session was bound to: as a store reset, the user
        // did nothing and the server did not end it.
        case .proofKeyLost: return .storeReset
        }
    }
}
