// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "MyApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // No tagged release yet: a checkout beside your package, named because a path
        // dependency's identity is its folder's name (or a branch of the git repository).
        .package(name: "SessionVault", path: "../SessionVault"),
        // Only to hand SessionVault a Logger of your own.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(name: "MyApp", dependencies: [
            .product(name: "SessionVault", package: "SessionVault"),
            .product(name: "SessionVaultTesting", package: "SessionVault"),  // test doubles; an app's test target
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
