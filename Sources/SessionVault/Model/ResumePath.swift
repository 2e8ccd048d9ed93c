import Foundation

/// Which way the app goes on launch or on return from background.
public enum ResumePath: Sendable, Equatable, CustomStringConvertible {
    /// Access token alive beyond the minimum TTL, inside idle and absolute limits: go home.
    case valid(Session)
    /// Unlock (biometric if enabled), refresh, store the rotated tokens, go home.
    case expired(Session, ExpiryReason)
    /// Full login.
    case missing(MissingReason)
    /// The store cannot be trusted: recover (wipe, tombstone), then full login.
    case corrupted(CorruptionReason)
    /// The key cannot be read right now: retry after the delay; never wipe, never log out.
    case unavailable(retryAfter: TimeInterval, detail: String)

    /// `valid`, `expired`, `missing`, `corrupted` or `unavailable`: the stable name tools print.
    package var name: String {
        switch self {
        case .valid: return "valid"
        case .expired: return "expired"
        case .missing: return "missing"
        case .corrupted: return "corrupted"
        case .unavailable: return "unavailable"
        }
    }

    /// The reason in the stable text form tools print ("" for valid); apps match the cases.
    package var reason: String {
        switch self {
        case .valid: return ""
        case .expired(_, let reason): return reason.rawValue
        case .missing(let reason): return reason.code
        case .corrupted(let reason): return reason.kind.rawValue
        case .unavailable(_, let detail): return detail
        }
    }

    /// The session the path is about, if any.
    public var session: Session? {
        switch self {
        case .valid(let session), .expired(let session, _): return session
        default: return nil
        }
    }

    /// The path and its reason, e.g. `expired(idle)`, `missing(signedOut)`; never a token.
    public var description: String {
        switch self {
        case .valid(let session): return "valid(session \(session.shortID))"
        case .expired(let session, let reason): return "expired(\(reason.rawValue), session \(session.shortID))"
        case .missing(let reason): return "missing(\(reason.code))"
        case .corrupted(let reason): return "corrupted(\(reason))"
        case .unavailable(let retryAfter, let detail): return "unavailable(retry in \(retryAfter) s: \(detail))"
        }
    }
}
