/// The library's version, recorded in tombstones and shown by the CLI.
public enum SessionVaultVersion {
    public static let current = "0.1.0"
}
