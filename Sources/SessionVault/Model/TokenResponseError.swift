/// Why a token response was refused. Names fields, never their values.
public enum TokenResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not a JSON object.
    case notJSON
    /// A required field is absent (e.g. `access_token`, or no subject anywhere for a sign-in).
    case missingField(String)
    /// A field has the wrong type or an out-of-range value (see `TokenResponse.lifetimeRange`).
    case invalidField(String)

    public var description: String {
        switch self {
        case .notJSON: return "token response is not a JSON object"
        case .missingField(let name): return "token response has no \(name)"
        case .invalidField(let name): return "token response field \(name) has the wrong type or value"
        }
    }
}
