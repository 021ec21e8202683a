// swift-tools-version:6.1
import PackageDescription

/// `make demo`: the seed's examples run for real against the to-do API the tests' server embeds
/// on 127.0.0.1, through Connect and through the client swift-openapi-generator made. Depends on
/// Connect by path, with the trait `OpenAPI`, as an app would by URL.
let package = Package(
    name: "ConnectExamples",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Connect", path: "..", traits: [.defaults, "OpenAPI"]),
        .package(path: "../Tests/Support"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4")
    ],
    targets: [
        .executableTarget(
            name: "connect-demo",
            dependencies: [
                .product(name: "Connect", package: "Connect"),
                .product(name: "ConnectFutures", package: "Connect"),
                .product(name: "ConnectOpenAPI", package: "Connect"),
                .product(name: "ConnectTestServer", package: "Support"),
                .product(name: "TodoAPIClient", package: "Support"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]
        )
    ],
    swiftLanguageModes: [.v6]
)
