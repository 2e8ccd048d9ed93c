extension KeyProviderError {
    /// Brings an error from untyped code (closures over locked memory) back to this type:
    /// itself, a crypto failure, or anything else as an invalid key.
    init(wrapping error: any Error) {
        switch error {
        case let error as KeyProviderError: self = error
        case let error as CryptoError: self = .crypto(error)
        default: self = .invalid("\(error)")
        }
    }
}
