// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "SessionVault",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SessionVault", targets: ["SessionVault"]),
        .executable(name: "sessionvault", targets: ["sessionvault"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // DPoP proofs (issue 29): P-256 signing (ES256) and SHA-256, from a well-kept library
        // rather than hand-written curve code; on Apple platforms it forwards to CryptoKit.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `make docs`: swift package generate-documentation (DocC), warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C libraries from the system (apt: libsqlcipher-dev, libsodium-dev).
        .systemLibrary(
            name: "CSQLCipher",
            pkgConfig: "sqlcipher",
            providers: [.apt(["libsqlcipher-dev"]), .brew(["sqlcipher"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),

        // The CLI's guard against core dumps (prctl is variadic: a static inline C function).
        .systemLibrary(name: "CProcessGuard"),

        // Turns Migrations/*.sql into Swift source at build time, so the schema ships inside the
        // library and an app needs no Migrations folder at run time.
        .executableTarget(name: "MigrationEmbedder"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),

        .target(
            name: "SessionVault",
            dependencies: [
                "CSQLCipher",
                "CSodium",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            plugins: ["EmbedMigrations"]
        ),
        .executableTarget(
            name: "sessionvault",
            dependencies: [
                "SessionVault",
                "CProcessGuard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Child processes for the tests that need a second process or a SIGKILL.
        .executableTarget(
            name: "VaultTestHost",
            dependencies: ["SessionVault", .product(name: "Logging", package: "swift-log")]
        ),
        .executableTarget(
            name: "VaultCrashHost",
            dependencies: ["SessionVault"]
        ),

        // The README's Swift code, compiled: each file is one README block (shown exactly as
        // written; Apple-only ones behind `#if canImport`), and main.swift runs the README's story
        // against a real authorization server (scripts/readme-client.sh).
        .executableTarget(
            name: "ReadmeExamples",
            dependencies: ["SessionVault", .product(name: "Logging", package: "swift-log")],
            path: "Examples/ReadmeExamples"
        ),

        // What the three test targets share, once instead of a copy in each (as
        // swift-argument-parser's ArgumentParserTestHelpers). It uses the library's public and
        // `package` API only, no `@testable import`.
        .target(
            name: "SessionVaultTestSupport",
            dependencies: ["SessionVault"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SessionVaultTests",
            dependencies: ["SessionVault", "SessionVaultTestSupport", "CSQLCipher", "CSodium", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "CorruptionRecoveryTests",
            dependencies: ["SessionVault", "SessionVaultTestSupport", "CSQLCipher", "CSodium"]
        ),
        .testTarget(
            name: "SessionVaultCLITests",
            dependencies: ["SessionVault", "SessionVaultTestSupport"]
        ),
        // The crash-state explorer (issue 25): VaultCrashHost's workloads recorded by an
        // LD_PRELOAD library (Tests/CrashStates/interposer.c, compiled by the test with cc),
        // replayed into every state a power cut can leave, each opened by the library and the CLI.
        .testTarget(
            name: "CrashStateTests",
            dependencies: ["SessionVault", "SessionVaultTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
