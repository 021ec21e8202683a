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
    private let builder: RequestBuilder

    init(_ builder: RequestBuilder) {
        self.builder = builder
    }

    /// ``RequestBuilder/build(_:)``.
    func build(_ connector: any Connector) throws(ConnectError) -> Request {
        try builder.build(connector)
    }

    /// ``RequestBuilder/buildUpload(_:files:)``.
    func buildUpload(_ connector: any Connector, files: [File]) throws(ConnectError) -> Request {
        try builder.buildUpload(connector, files: files)
    }
}
