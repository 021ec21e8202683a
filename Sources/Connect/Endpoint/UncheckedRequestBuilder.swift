import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `RequestBuilder` holds a `JSONEncoder`, which is not `Sendable` on every platform; the
/// builder never mutates it after `Connect.init`, and encoding with one instance from several
/// threads at once is safe.
struct UncheckedRequestBuilder: @unchecked Sendable {
    let builder: RequestBuilder

    init(_ builder: RequestBuilder) {
        self.builder = builder
    }
}
