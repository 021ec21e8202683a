// swift-tools-version:6.0
import PackageDescription

/// libFuzzer harnesses for every parser of bytes from the network, built apart from the library
/// (with `-sanitize=fuzzer,address -parse-as-library -enable-testing`, see `run`): each reaches
/// its parser through `@testable import` of the module that holds it (`ConnectWire`, whose module
/// the `Connect` product builds, or `Connect`). `make fuzz` runs each for as long as asked; CI runs
/// each for a short time (`make fuzz-smoke`).
let harnesses = [
    "FuzzResponseHead", "FuzzChunked", "FuzzContentDecoding", "FuzzServerSentEvents", "FuzzLineSplitter",
    "FuzzJSONReader",
    "FuzzHTTPDate", "FuzzResume", "FuzzWebSocketFrames", "FuzzSetCookie",
    "FuzzCacheControl", "FuzzCacheEntry", "FuzzAltSvc"
]

let package = Package(
    name: "ConnectFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Connect", path: "..")],
    targets: [
        // zlib's own one-shot coders: the reference the content decoders are checked against.
        .systemLibrary(name: "CZlibReference", pkgConfig: "zlib"),
        .target(name: "FuzzSupport", dependencies: [.product(name: "Connect", package: "Connect")])
    ]
        + harnesses.map { name in
            .executableTarget(
                name: name,
                dependencies: [.product(name: "Connect", package: "Connect"), "FuzzSupport", "CZlibReference"]
            )
        }
)
