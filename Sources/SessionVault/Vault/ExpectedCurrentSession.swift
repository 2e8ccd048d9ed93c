/// The current session a conditional store expects to replace: the one a sign-in saw before it
/// went to the server.
enum ExpectedCurrentSession: Sendable, Equatable {
    /// No session was current.
    case none
    /// This session (by id) was current.
    case session(String)

    init(_ id: String?) { self = id.map(ExpectedCurrentSession.session) ?? .none }

    func matches(_ currentID: String?) -> Bool {
        switch self {
        case .none: return currentID == nil || currentID == ""
        case .session(let id): return currentID == id
        }
    }
}
