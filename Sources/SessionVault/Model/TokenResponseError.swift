/// Why a token response was refused. Names fields, never their values.
public enum TokenResponseError: Error, Sendable, Equatable, CustomStringConvertible {
    case notJSON
    case missingField(String)
    case invalidField(String)

    public var description: String {
        switch self {
        case .notJSON: return "token response is not a JSON object"
        case .missingField(let name): return "token response has no \(name)"
        case .invalidField(let name): return "token response field \(name) has the wrong type or value"
        }
    }
}
