// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "AsyncHTTPClientMemory",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0")],
    targets: [
        .executableTarget(
            name: "AsyncHTTPClientMemory",
            dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client")])
    ]
)
