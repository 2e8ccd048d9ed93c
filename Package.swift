// swift-tools-version:6.1
import PackageDescription

// MARK: - SQLCipher and libsodium, per platform
//
// The library's sources import two modules, `CSQLCipher` and `CSodium`, whatever provides them.
//
// Linux (and any host that is not Apple's): Debian's libraries through pkg-config, as system
// library targets (Sources/CSQLCipher, Sources/CSodium). No other package is declared, so a
// Linux build resolves nothing for them.
//
// Apple: an iOS target cannot link a pkg-config library, so `CSQLCipher` and `CSodium` become
// one-line Swift targets re-exporting SQLCipher's official package (binary XCFramework, module
// `SQLCipher`) and swift-sodium's `Clibsodium` (XCFramework). Chosen on the *host* with `#if`:
// an iOS app is always built on macOS, so an app adds one `.package` line and sets nothing. Not a
// platform condition on the dependency, because SwiftPM resolves (and downloads the binary of)
// every package a manifest declares, whatever condition its use carries; not a package trait,
// because Xcode before 26.4 cannot choose one.
//
// SESSIONVAULT_APPLE_PACKAGES=1 takes the Apple branch on any host: the stand-in leg
// (`make test-standins`) builds it on Linux against local packages of the same names.
// SESSIONVAULT_APPLE_PACKAGES=0 takes the system branch on a Mac (Homebrew's libraries).
let useApplePackages: Bool = {
    switch Context.environment["SESSIONVAULT_APPLE_PACKAGES"] {
    case "1": return true
    case "0": return false
    default:
        #if canImport(Darwin)
        return true
        #else
        return false
        #endif
    }
}()

/// The packages that provide the two C libraries on Apple platforms (none elsewhere).
let cLibraryPackages: [Package.Dependency] =
    useApplePackages
    ? [
        // Product and module `SQLCipher`; 4.x: our pinned settings read and write 3.4.1's format.
        .package(url: "https://github.com/sqlcipher/SQLCipher.swift.git", "4.14.0"..<"5.0.0"),
        // Product and module `Clibsodium`.
        .package(url: "https://github.com/jedisct1/swift-sodium.git", from: "0.10.0")
    ] : []

/// `sqlite3_key` and `sqlite3_rekey` are declared only when the importer defines it: SQLCipher's
/// package header leaves it to the consumer (our system shim defines it itself).
let sqlCipherDefines: [CSetting] = [.define("SQLITE_HAS_CODEC", to: "1")]

/// The two targets every SQLCipher or libsodium call goes through.
let cLibraryTargets: [Target] =
    useApplePackages
    ? [
        .target(
            name: "CSQLCipher",
            dependencies: [.product(name: "SQLCipher", package: "SQLCipher.swift")],
            path: "Sources/ApplePackages/CSQLCipher",
            cSettings: sqlCipherDefines
        ),
        .target(
            name: "CSodium",
            dependencies: [.product(name: "Clibsodium", package: "swift-sodium")],
            path: "Sources/ApplePackages/CSodium"
        )
    ]
    : [
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
        )
    ]

let package = Package(
    name: "SessionVault",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SessionVault", targets: ["SessionVault"]),
        // Test doubles for an app's own tests and previews (as swift-log ships InMemoryLogging):
        // an in-memory key provider, clocks moved by hand, a scripted biometric gate.
        .library(name: "SessionVaultTesting", targets: ["SessionVaultTesting"]),
        .executable(name: "sessionvault", targets: ["sessionvault"]),
        // The fuzz harness's entry points, for the fuzz package in Fuzz/ only: underscored, as
        // swift-crypto's `_CryptoExtras`, because it is no API an app uses or may rely on.
        .library(name: "_SessionVaultFuzzing", targets: ["_SessionVaultFuzzing"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // DPoP proofs (sender-constrained sessions): P-256 signing (ES256) and SHA-256, from a well-kept library
        // rather than hand-written curve code; on Apple platforms it forwards to CryptoKit.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // `make docs`: swift package generate-documentation (DocC), warnings as errors.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")
    ] + cLibraryPackages,
    targets: cLibraryTargets + [
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
                .product(name: "Crypto", package: "swift-crypto")
            ],
            cSettings: sqlCipherDefines,
            plugins: ["EmbedMigrations"]
        ),
        .target(
            name: "SessionVaultTesting",
            dependencies: ["SessionVault"]
        ),
        // The fuzz targets' entry points and fixtures (Fuzz/ builds libFuzzer around them): out
        // of the library, so that no app compiles them, and through `package` access to the
        // library's internals, which holds inside this package only.
        .target(
            name: "_SessionVaultFuzzing",
            dependencies: ["SessionVault"]
        ),
        .executableTarget(
            name: "sessionvault",
            dependencies: [
                "SessionVault",
                "CProcessGuard",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
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
            dependencies: ["SessionVault", "SessionVaultTesting", .product(name: "Logging", package: "swift-log")],
            path: "Examples/ReadmeExamples"
        ),

        // What the three test targets share, once instead of a copy in each (as
        // swift-argument-parser's ArgumentParserTestHelpers). It uses the library's public and
        // `package` API only, no `@testable import`.
        .target(
            name: "SessionVaultTestSupport",
            dependencies: ["SessionVault", "SessionVaultTesting"],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "SessionVaultTests",
            dependencies: [
                "SessionVault", "SessionVaultTesting", "SessionVaultTestSupport", "CSQLCipher", "CSodium", .product(name: "Logging", package: "swift-log")
            ],
            cSettings: sqlCipherDefines
        ),
        .testTarget(
            name: "CorruptionRecoveryTests",
            dependencies: ["SessionVault", "SessionVaultTesting", "SessionVaultTestSupport", "CSQLCipher", "CSodium"],
            cSettings: sqlCipherDefines
        ),
        .testTarget(
            name: "SessionVaultCLITests",
            dependencies: ["SessionVault", "SessionVaultTestSupport"],
            // The CLI's help texts and the README transcript, read by SnapshotTests from the
            // source tree (they are compared, not bundled).
            exclude: ["Snapshots"]
        ),
        // The crash-state explorer: VaultCrashHost's workloads recorded by an
        // LD_PRELOAD library (Tests/CrashStates/interposer.c, compiled by the test with cc),
        // replayed into every state a power cut can leave, each opened by the library and the CLI.
        .testTarget(
            name: "CrashStateTests",
            dependencies: ["SessionVault", "SessionVaultTestSupport"]
        )
    ],
    swiftLanguageModes: [.v6]
)

// MARK: - Warnings as errors, for our own builds only
//
// `make check-warnings` (CI) sets SESSIONVAULT_WARNINGS_AS_ERRORS=1: every Swift target of this
// package (library, test doubles, CLI, test hosts, examples, tests) then compiles with
// `-warnings-as-errors`. Unset, the manifest carries no unsafe flag, so an app that depends on
// SessionVault by version still resolves it (SwiftPM refuses unsafeFlags in a versioned
// dependency). Not `-Xswiftc -warnings-as-errors` on the command line: that reaches the
// dependencies too, which SwiftPM builds with `-suppress-warnings`, a pair the swiftbuild build
// system rejects (swift-package-manager #10192), and it rebuilds every dependency whenever it is
// switched. Not `.treatAllWarnings(as: .error)`: it needs tools-version 6.2, and this manifest
// stays at 6.1 so that Xcode 16 resolves it.
if Context.environment["SESSIONVAULT_WARNINGS_AS_ERRORS"] == "1" {
    for target in package.targets where target.type != .system && target.type != .plugin && target.type != .binary {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-warnings-as-errors"])]
    }
}
