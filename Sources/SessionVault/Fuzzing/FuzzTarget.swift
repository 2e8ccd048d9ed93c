/// Entry points for the libFuzzer targets in `Fuzz/` (`make fuzz`): one function per target,
/// each taking one input and answering nil when every property held, or what was broken.
///
/// Why `@_spi(Fuzzing) public` rather than `package`: the targets are a SwiftPM package of their
/// own (Fuzz/Package.swift, depending on this one by path), which keeps `-sanitize=fuzzer` and
/// libFuzzer's `main` out of this package's build, its tests and `swift build --build-tests`;
/// `package` access does not reach across packages. SPI symbols stay out of the symbol graph
/// that `make check-api` and DocC read, so the public API does not grow: only a client that
/// writes `@_spi(Fuzzing) import SessionVault` sees them.
///
/// The library never traps, so the entry points do not either: a broken property comes back as
/// text (never a secret), and the fuzz target turns it into the crash libFuzzer records.
@_spi(Fuzzing) public enum FuzzTarget {
    /// The targets by name, as `Fuzz/` builds them and `make fuzz` runs them.
    public static let names = ["token-response", "jwt-claims", "auth-error", "key-file", "header", "tombstone", "vault-open"]
}
