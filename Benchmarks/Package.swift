// swift-tools-version:6.1
import PackageDescription

// The benchmark suite is its own package so the library's build (and `make test`) never pulls in
// ordo-one/benchmark and its dependencies. Run it with `make bench` from the repository root.
let package = Package(
    name: "SessionVaultBenchmarks",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its folder's name, which
        // differs between checkouts.
        .package(name: "SessionVault", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"])
    ],
    targets: [
        // Raw SQLCipher for the baselines and fixtures (the root package's CSQLCipher and
        // CSodium targets are not products, so this package declares its own).
        .systemLibrary(
            name: "CSQLCipherBench",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"]), .brew(["sqlcipher"])]
        ),
        .systemLibrary(
            name: "CSodiumBench",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),
        // Fixtures and baselines shared by the suite and the profiling tool.
        .target(
            name: "BenchFixtures",
            dependencies: [
                .product(name: "SessionVault", package: "SessionVault"),
                // InMemoryKeyProvider: the suite keys its fixtures in memory.
                .product(name: "SessionVaultTesting", package: "SessionVault"),
                "CSQLCipherBench",
                "CSodiumBench"
            ]
        ),
        // One scenario in a loop, for `valgrind --tool=callgrind` and `strace -c` (see README).
        .executableTarget(
            name: "SessionVaultProfile",
            dependencies: [
                .product(name: "SessionVault", package: "SessionVault"),
                "BenchFixtures"
            ]
        ),
        .executableTarget(
            name: "SessionVaultBenchmarks",
            dependencies: [
                .product(name: "SessionVault", package: "SessionVault"),
                .product(name: "SessionVaultTesting", package: "SessionVault"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchFixtures"
            ],
            path: "Benchmarks/SessionVaultBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
