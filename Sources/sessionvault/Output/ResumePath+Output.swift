import SessionVault

extension ResumePath {
    /// The colour of the path's name on a terminal.
    var style: Console.Style {
        switch self {
        case .valid: return .boldGreen
        case .expired: return .yellow
        case .missing: return .blue
        case .corrupted: return .boldRed
        case .unavailable: return .magenta
        }
    }

    /// The stable reason text, nil for `valid`.
    var reasonText: String? { reason.isEmpty ? nil : reason }

    /// What the app does on this path (the table in ARCHITECTURE.md).
    var advice: String {
        switch self {
        case .valid: return "go straight home, no prompt"
        case .expired(let session, _) where session.refreshRefusedSince != nil:
            return "unlock if asked, refresh; the server refused the last renewal without a verdict: "
                + "renewalRefused (offer a new sign-in) until it answers or the refusal limit passes"
        case .expired: return "unlock (biometric if enabled, else password), refresh, go home"
        case .missing: return "show the sign-in screen (full login)"
        case .corrupted: return "wipe everything, record why, show the sign-in screen"
        case .unavailable: return "retry shortly; never wipe, never sign out"
        }
    }

    /// `{"path", "reason", "session"}` plus `detail` for corrupted and `retryAfter` for
    /// unavailable.
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "path": .string(name),
            "reason": .string(reasonText),
            "session": session?.json ?? .null
        ]
        switch self {
        case .corrupted(let reason): members["detail"] = .string(reason.detail)
        case .unavailable(let retryAfter, let detail):
            members["detail"] = .string(detail)
            members["retryAfter"] = .double(retryAfter)
        default: break
        }
        return .object(members)
    }

    /// `valid`, `expired (accessTokenExpired)`, …
    var summary: String { reasonText.map { "\(name) (\($0))" } ?? name }
}
