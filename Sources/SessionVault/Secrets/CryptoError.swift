/// A failure of a libsodium primitive. Never carries key or plaintext bytes.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `sodium_init` failed: no safe random source.
    case initializationFailed
    /// Locked memory could not be allocated (sodium_malloc returned NULL).
    case secureAllocationFailed(bytes: Int)
    /// A sealed value did not authenticate under this key and associated data.
    case authenticationFailed
    /// A sealed value is too short or has an unknown format byte.
    case malformedCiphertext
    /// Argon2id could not run with the requested limits (usually: not enough memory).
    case keyDerivationFailed

    public var description: String {
        switch self {
        case .initializationFailed: return "libsodium could not be initialized"
        case .secureAllocationFailed(let bytes): return "could not allocate \(bytes) bytes of locked memory"
        case .authenticationFailed: return "sealed value failed authentication"
        case .malformedCiphertext: return "sealed value is malformed"
        case .keyDerivationFailed: return "Argon2id key derivation failed"
        }
    }
}

/// An error type that can carry a libsodium failure: what lets `SecretBytes`' allocation be
/// generic over its filler's error type (the filler's own error, or the allocation failure as
/// that type) instead of untyped, which forced every caller into a cast ladder.
protocol CryptoFailureCarrying: Error {
    /// The error that says `failure` happened.
    init(cryptoFailure failure: CryptoError)
}

extension CryptoError: CryptoFailureCarrying {
    init(cryptoFailure failure: CryptoError) { self = failure }
}
