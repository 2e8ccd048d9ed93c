/// A key provider's work allocates locked memory: its own error carries that failure too, so
/// `SecretBytes`' allocation throws the provider's error type and needs no cast.
extension KeyProviderError: CryptoFailureCarrying {
    init(cryptoFailure failure: CryptoError) { self = .crypto(failure) }
}
