/// Why there is no usable session (the app shows full login).
public enum MissingReason: Sendable, Equatable, Codable, CustomStringConvertible {
    /// No session was ever stored in this vault.
    case neverSignedIn
    /// The user (or another process of the app) signed out.
    case signedOut
    /// The refresh token's lifetime passed: only a new sign-in helps.
    case refreshTokenExpired
    /// The policy's absolute session lifetime passed, whatever the tokens say.
    case absoluteLifetimePassed
    /// The server rejected the refresh token (invalid_grant).
    case refreshRejected
    /// The app stopped mid-refresh and the server no longer accepts the old refresh token.
    case refreshInterrupted
    /// The server said the session expired (401 SESSION_EXPIRED and similar): show a message.
    case sessionExpired
    /// The server said authentication is required (401 AUTH_REQUIRED): no message.
    case authRequired
    /// The server refused the scope the refresh asked for (invalid_scope): only a new sign-in
    /// can grant it, so the session the app can no longer use as configured ended.
    case scopeRejected
    /// The biometric enrolment changed since the user enabled biometric unlock.
    case biometryChanged
    /// A refresh was answered with tokens of another subject: nothing of them was stored, and
    /// the session cannot go on with a token the server now ties to someone else.
    case refreshedForAnotherSubject
    /// The vault was wiped because it could not be trusted; the tombstone says why.
    case wipedAfterCorruption(CorruptionKind)
    /// The session's DPoP proof key is gone (a vault restored without it, a key provider that
    /// lost it: a new device, a reset Secure Enclave): its tokens are bound to that key and
    /// useless without it, so nothing was sent. `subject` is the session's user, kept for the
    /// login screen (to offer "sign in again as …").
    case proofKeyLost(subject: String)

    /// Stable text for storage and the CLI, e.g. `signedOut`, `wipedAfterCorruption:rollback`,
    /// `proofKeyLost:<subject>`.
    public var code: String {
        switch self {
        case .neverSignedIn: return "neverSignedIn"
        case .signedOut: return "signedOut"
        case .refreshTokenExpired: return "refreshTokenExpired"
        case .absoluteLifetimePassed: return "absoluteLifetimePassed"
        case .refreshRejected: return "refreshRejected"
        case .refreshInterrupted: return "refreshInterrupted"
        case .sessionExpired: return "sessionExpired"
        case .authRequired: return "authRequired"
        case .scopeRejected: return "scopeRejected"
        case .biometryChanged: return "biometryChanged"
        case .refreshedForAnotherSubject: return "refreshedForAnotherSubject"
        case .wipedAfterCorruption(let kind): return "wipedAfterCorruption:\(kind.rawValue)"
        case .proofKeyLost(let subject): return "proofKeyLost:\(subject)"
        }
    }

    /// Parses `code`; unknown text reads as `signedOut` (the safe "no session" answer).
    package init(code: String) {
        let all: [MissingReason] = [
            .neverSignedIn, .signedOut, .refreshTokenExpired, .absoluteLifetimePassed, .refreshRejected,
            .refreshInterrupted, .sessionExpired, .authRequired, .scopeRejected, .biometryChanged,
            .refreshedForAnotherSubject
        ]
        if let match = all.first(where: { $0.code == code }) {
            self = match
        } else if code.hasPrefix("wipedAfterCorruption:"), let kind = CorruptionKind(rawValue: String(code.dropFirst(21))) {
            self = .wipedAfterCorruption(kind)
        } else if code.hasPrefix("proofKeyLost:") {
            self = .proofKeyLost(subject: String(code.dropFirst(13)))
        } else {
            self = .signedOut
        }
    }

    public var description: String { code }
}

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
