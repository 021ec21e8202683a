import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// async-http-client's side of `make bench-memory` (with WITH_ASYNC_HTTP_CLIENT=1): COUNT
// sequential GETs of URL, each body read whole, as `HTTPBenchmark URL COUNT 1` does.
// usage: AsyncHTTPClientMemory URL COUNT; prints the requests and the failures.
let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    print("usage: AsyncHTTPClientMemory URL COUNT")
    exit(2)
}
let client = HTTPClient(eventLoopGroupProvider: .singleton)
var failures = 0
for _ in 0..<count {
    do {
        let response = try await client.execute(HTTPClientRequest(url: arguments[1]), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
    } catch {
        failures += 1
    }
}
await client.shutdown()
print(count, failures)
