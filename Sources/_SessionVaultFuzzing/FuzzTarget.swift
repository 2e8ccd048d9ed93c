/// Entry points for the libFuzzer harness in `Fuzz/` (`make fuzz`): one function per target,
/// each taking one input and answering nil when every property held, or what was broken.
///
/// This module is the package's `_SessionVaultFuzzing` product (underscored, as swift-crypto's
/// `_CryptoExtras`: not API an app uses, no promise of stability). It is its own target, so that
/// no app compiles it into the library, and it reaches the library's internals through `package`
/// access, which holds inside this package only. Its `public` symbols are for the fuzz package
/// (Fuzz/Package.swift, depending on this one by path), which keeps `-sanitize=fuzzer` and
/// libFuzzer's `main` out of this package's build, its tests and `swift build --build-tests`.
///
/// The library never traps, so the entry points do not either: a broken property comes back as
/// text (never a secret), and the fuzz harness turns it into the crash libFuzzer records.
public enum FuzzTarget {
    /// The targets, by the names `make fuzz` runs, `Fuzz/Corpus/<name>` and
    /// `Fuzz/Dictionaries/<name>.dict` use: the one list of them (the harness's `--list` prints
    /// it for the Makefile and scripts/fuzz.sh).
    public enum Name: String, CaseIterable, Sendable {
        case tokenResponse = "token-response"
        case jwtClaims = "jwt-claims"
        case authError = "auth-error"
        case keyFile = "key-file"
        case header
        case tombstone
        case vaultOpen = "vault-open"
    }

    /// The entry point of `target`.
    public static func entry(_ target: Name) -> ([UInt8]) -> String? {
        switch target {
        case .tokenResponse: return tokenResponse
        case .jwtClaims: return jwtClaims
        case .authError: return authError
        case .keyFile: return keyFile
        case .header: return header
        case .tombstone: return tombstone
        case .vaultOpen: return vaultOpen
        }
    }
}
