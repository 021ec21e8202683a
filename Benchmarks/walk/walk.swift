// One GET through a cache miss, for `Benchmarks/walk/run`: a first GET opens the connection and
// warms the client, then `walkStarts()` marks where the counted GET begins and `walkEnds()` where
// its value is in the caller's hands. lldb stops at every function of Connect's modules between
// the two (see count.py).
import Connect
import Dispatch
import Foundation

struct Page: Connector {
    let baseURL: URL
    let endpoint: String
    var method: HTTPMethod { .get }
    var headers: [HTTPHeader] { [] }
    var parameters: (any ParametersRepresentable)? { nil }
}

@inline(never) func walkStarts() { print("walk starts") }
@inline(never) func walkEnds() { print("walk ends") }

let base = URL(string: CommandLine.arguments[1])!
var configuration = ConnectConfiguration()
configuration.cache = ResponseCache(memoryCapacity: 1 << 20)
let connect = Connect(configuration: configuration)

func get(_ path: String) -> Data {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var body = Data()
    connect.request(Page(baseURL: base, endpoint: path)).observe { result in
        body = (try? result.get()) ?? Data()
        done.signal()
    }
    done.wait()
    return body
}

_ = get("/warm")
walkStarts()
let body = get("/counted")
walkEnds()
print("body: \(body.count) bytes")
