/// Why a DPoP proof key could not be made, found again or used.
///
/// `lost` is the one that ends a session: the key that the server bound the tokens to is gone
/// for good (a vault restored on a new device, a Secure Enclave that was reset), so every token
/// of the session is useless and nothing is sent with them. `unavailable` is "not now" (a
/// keystore locked after a restart): retry, never end the session for it.
public enum ProofKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key is gone for good; `detail` says why (never key bytes).
    case lost(String)
    /// The key cannot be used right now; retry later.
    case unavailable(String)
    /// Making or using the key failed (a platform or library error).
    case failed(String)

    public var description: String {
        switch self {
        case .lost(let detail): return "proof key lost: \(detail)"
        case .unavailable(let detail): return "proof key unavailable right now: \(detail)"
        case .failed(let detail): return "proof key failure: \(detail)"
        }
    }
}
