// swift-tools-version:6.1
import PackageDescription

/// The benchmarks (`make bench`, `make bench-*`; see README.md): release builds that print their
/// figures next to raw libcurl's. A package of its own, depending on Connect by path, so that the
/// library's manifest carries none of them and none of their dependencies (SwiftNIO, for the
/// futures' comparison).
let package = Package(
    name: "ConnectBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Connect", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(path: "../Tests/Support")
    ],
    targets: [
        .target(name: "AllocationCounter", path: "AllocationCounter"),
        .executableTarget(
            name: "FutureBenchmark",
            dependencies: [
                "AllocationCounter",
                .product(name: "ConnectFutures", package: "Connect"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio")
            ],
            path: "FutureBenchmark"
        ),
        .target(name: "BenchmarkReport", path: "BenchmarkReport"),
        .executableTarget(
            name: "HTTPBenchmark",
            dependencies: ["BenchmarkReport", .product(name: "Connect", package: "Connect")],
            path: "HTTPBenchmark"
        ),
        .executableTarget(
            name: "JSONBenchmark",
            dependencies: ["AllocationCounter", .product(name: "Connect", package: "Connect")],
            path: "JSONBenchmark"
        ),
        // libcurl through the same C shim Connect uses (Sources/CCurl/shim.h), for the least a
        // Swift client does.
        .systemLibrary(name: "CCurlFloor", path: "CCurlFloor", pkgConfig: "libcurl"),
        .executableTarget(
            name: "SwiftFloor",
            dependencies: ["BenchmarkReport", "CCurlFloor"],
            path: "SwiftFloor"
        ),
        .executableTarget(
            name: "WebSocketBenchmark",
            dependencies: [
                .product(name: "Connect", package: "Connect"),
                .product(name: "ConnectTestServer", package: "Support")
            ],
            path: "WebSocketBenchmark"
        ),
        .executableTarget(
            name: "CacheBenchmark",
            dependencies: [
                "BenchmarkReport", "CCurlFloor", .product(name: "Connect", package: "Connect"),
                .product(name: "ConnectTestServer", package: "Support")
            ],
            path: "CacheBenchmark"
        ),
        .executableTarget(
            name: "ResilienceBenchmark",
            dependencies: [
                .product(name: "Connect", package: "Connect"),
                .product(name: "ConnectTestServer", package: "Support")
            ],
            path: "ResilienceBenchmark"
        ),
        .executableTarget(
            name: "TransferBenchmark",
            dependencies: [.product(name: "Connect", package: "Connect")],
            path: "TransferBenchmark"
        )
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? [])
        + [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
}
