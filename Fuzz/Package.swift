// swift-tools-version:6.1
import PackageDescription

// The libFuzzer targets (issue 16), one executable each, built and run by `make fuzz` from the
// repository root. Their own package, depending on the library by path, so that
// the sanitizers (ASan and coverage passed with -Xswiftc by the Makefile, so that the library is
// instrumented too) and libFuzzer's `main` never reach the library's own build or its tests.
// The entry points they call are the library's `@_spi(Fuzzing)` ones (Sources/SessionVault/
// Fuzzing): `package` access does not cross packages, and SPI does not widen the public API.
let targets = ["token-response", "jwt-claims", "auth-error", "key-file", "header", "tombstone", "vault-open"]

let package = Package(
    name: "SessionVaultFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its folder's name.
        .package(name: "SessionVault", path: ".."),
    ],
    targets: [
        // What every target shares: the libFuzzer hooks' bodies, seed writing, the exit report.
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzer", .product(name: "SessionVault", package: "SessionVault")]
        ),
        // libFuzzer's driver, declared for Swift (see its header).
        .target(name: "CFuzzer"),
    ] + targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: ["CFuzzer", "FuzzSupport", .product(name: "SessionVault", package: "SessionVault")],
            // libFuzzer only here, at link time: the Makefile instruments every module (this
            // package's, the library, swift-log) with ASan and coverage, and a global
            // -sanitize=fuzzer would also reach the library's build tool (the migration
            // embedder) and fail its link with a second `main`.
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
        )
    },
    swiftLanguageModes: [.v6]
)
