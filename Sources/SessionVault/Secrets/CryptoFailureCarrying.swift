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
