// swift-tools-version:6.0
import PackageDescription

/// What Connect's tests stand on, in a package of its own so that an app depending on Connect
/// never resolves SwiftNIO or the OpenAPI runtime for them: the in-process HTTP/1.1 server the
/// tests and the demo start on 127.0.0.1 (built on SwiftNIO; it can misbehave on purpose), and
/// the client swift-openapi-generator made from the to-do API's `openapi.yaml` (`make openapi`
/// regenerates it). Connect's test targets reach it by path; it depends on nothing of Connect's.
let package = Package(
    name: "ConnectTestSupport",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ConnectTestServer", targets: ["ConnectTestServer"]),
        .library(name: "TodoAPIClient", targets: ["TodoAPIClient"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4")
    ],
    targets: [
        .target(
            name: "ConnectTestServer",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio")
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        ),
        .target(
            name: "TodoAPIClient",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]
        )
    ],
    swiftLanguageModes: [.v6]
)
