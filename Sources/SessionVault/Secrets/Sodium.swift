import CSodium

/// Makes sure `sodium_init` ran once before any primitive is used.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    static func ensureInitialized() throws(CryptoError) {
        guard initialized else { throw .initializationFailed }
    }

    /// Fresh random bytes from libsodium's CSPRNG (not secret-grade storage: use SecretBytes).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// Whether two tags are equal, in time that does not depend on where they differ.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.count == rhs.count && sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}
