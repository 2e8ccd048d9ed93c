// swift-tools-version:6.1
import PackageDescription

// The libFuzzer harness, built and run by `make fuzz` from the repository root: one
// executable, `sessionvault-fuzz`, for every target `FuzzTarget.Name` lists (the one list of
// them; `sessionvault-fuzz --list` prints it for the Makefile and scripts/fuzz.sh). Its own
// package, depending on the library's package by path, so that the sanitizers (ASan and coverage
// passed with -Xswiftc by the Makefile, so that the library is instrumented too) and libFuzzer's
// `main` never reach the library's own build or its tests. The entry points are that package's
// `_SessionVaultFuzzing` product, which reaches the library's internals with `package` access
// inside its own package; here only its public entry points are used.
let package = Package(
    name: "SessionVaultFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its folder's name.
        .package(name: "SessionVault", path: "..")
    ],
    targets: [
        // The harness around the entry points: the libFuzzer callback, seed writing, the exit report.
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzer", .product(name: "_SessionVaultFuzzing", package: "SessionVault")]
        ),
        // libFuzzer's driver, declared for Swift (see its header).
        .target(name: "CFuzzer"),
        .executableTarget(
            name: "sessionvault-fuzz",
            dependencies: ["CFuzzer", "FuzzSupport", .product(name: "_SessionVaultFuzzing", package: "SessionVault")],
            // libFuzzer only here, at link time: the Makefile instruments every module (this
            // package's, the library, swift-log) with ASan and coverage, and a global
            // -sanitize=fuzzer would also reach the library's build tool (the migration
            // embedder) and fail its link with a second `main`.
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
