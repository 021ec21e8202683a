#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JSONDecoder {
    /// A response body decoded as `type`: the one rule ``Future/decoded(toType:decoder:)`` and
    /// Connect's `JSONResponseDecoder` share. An empty body is an ``EmptyDecodable`` type's value
    /// (a `204` has no JSON to decode); a body that does not decode throws a ``DecodingFailure``
    /// naming the type, the coding path and the start of the body; any other error a type's own
    /// `init(from:)` throws goes on as it is.
    package func decodeBody<Decoded: Decodable>(_ type: Decoded.Type, from body: Data) throws -> Decoded {
        if body.isEmpty, let empty = Decoded.self as? any EmptyDecodable.Type {
            return empty.init() as! Decoded
        }
        do {
            return try decode(Decoded.self, from: body)
        } catch let error as DecodingError {
            throw DecodingFailure(type: Decoded.self, error: error, body: body)
        }
    }
}
