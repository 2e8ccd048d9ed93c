/// Why the real authorization server could not be used. Descriptions name files and statuses,
/// never a token.
enum OAuthTestServerError: Error, CustomStringConvertible {
    case venvMissing(String)
    case exitedBeforeReady(status: Int32, stderr: String)
    case notReady(seconds: Double)
    case unexpectedStatus(String, Int)
    case notJSON(String)

    var description: String {
        switch self {
        case .venvMissing(let path):
            return "the django-oauth-toolkit test server is not installed (\(path) missing): run `make test-servers` "
                + "(or `bash Tests/Servers/oauth/setup.sh`); `make test` does it first"
        case .exitedBeforeReady(let status, let stderr): return "the oauth test server exited (\(status)) before it was ready: \(stderr)"
        case .notReady(let seconds): return "the oauth test server printed no ready line within \(seconds) s"
        case .unexpectedStatus(let what, let status): return "\(what) answered HTTP \(status)"
        case .notJSON(let what): return "\(what) did not answer a JSON object"
        }
    }
}
