// The Connect product's dependencies (swift-log, swift-http-types, swift-distributed-tracing)
// come with the package trait `Client`, on by default, so that an app using ConnectFutures alone
// resolves none of them (see Package.swift).
#if !Client
#error(
    "The Connect product needs Connect's package trait Client, on by default: keep it with traits: [.defaults, …]"
)
#endif
