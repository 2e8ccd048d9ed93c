extension Vault {
    /// Re-encrypts the vault under the root key of `newKeys`; afterwards the old key no longer
    /// opens it.
    public func rekey(to newKeys: any KeyProvider) throws(VaultError) {
        throw .invalidArgument("rekey is not implemented yet")
    }
}
