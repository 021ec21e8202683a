// swift-tools-version:6.0
import PackageDescription

/// Every target of ours is built with these: existential types spelled `any`, and members
/// visible only from modules a file imports itself.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Connect",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Connect", targets: ["Connect"]),
        .library(name: "ConnectFutures", targets: ["ConnectFutures"]),
        .executable(name: "connect-demo", targets: ["connect-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // `swift package generate-documentation`: the DocC catalog in Sources/Connect/Connect.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "ConnectFutures"),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // The body decoders: Connect inflates gzip, deflate, br and zstd bodies itself (see ContentDecoder).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .target(
            name: "Connect",
            dependencies: [
                "ConnectFutures",
                "CCurl",
                "CZlib",
                "CBrotli",
                "CZstd",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // An in-process HTTP/1.1 server on 127.0.0.1 for the tests and the demo; it can misbehave on purpose.
        .target(
            name: "ConnectTestServer",
            dependencies: [
                "ConnectFutures",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "connect-demo",
            dependencies: ["Connect", "ConnectTestServer"]
        ),
        // Benchmarks (`make bench`): release builds that print numbers side by side.
        .target(name: "AllocationCounter", path: "Benchmarks/AllocationCounter"),
        .executableTarget(
            name: "FutureBenchmark",
            dependencies: [
                "AllocationCounter",
                "ConnectFutures",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/FutureBenchmark"
        ),
        .executableTarget(
            name: "HTTPBenchmark",
            dependencies: ["Connect"],
            path: "Benchmarks/HTTPBenchmark"
        ),
        .executableTarget(
            name: "TransferBenchmark",
            dependencies: ["Connect"],
            path: "Benchmarks/TransferBenchmark"
        ),
        .testTarget(name: "ConnectFuturesTests", dependencies: ["ConnectFutures"]),
        .testTarget(
            name: "ConnectTests",
            dependencies: ["Connect", "ConnectTestServer", "CZlib", .product(name: "Logging", package: "swift-log")],
            exclude: ["Certificates"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
