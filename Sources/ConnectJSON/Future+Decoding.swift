import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Future where Value == Data {
    /// A future of the JSON body decoded as `type`.
    ///
    /// ```swift
    /// fetchTodo(id: 1)                          // a Future<Data> of the body
    ///     .decoded(toType: Todo.self)
    ///     .observe { result in /* Result<Todo, Error> */ }
    /// ```
    /// The type can be left out where Swift infers it: `let todo: Future<Todo> = f.decoded()`.
    /// Without a `decoder`, the chain's ``FutureContext`` decoder is used, or a new
    /// `JSONDecoder()`.
    /// A body that does not decode fails the future with a ``DecodingFailure`` that names the
    /// type, the coding path and the start of the body, or with the error the chain's
    /// ``FutureContext/decodingFailure`` makes of it.
    public func decoded<Decoded: Decodable & Sendable>(
        toType type: Decoded.Type = Decoded.self,
        decoder: JSONDecoder? = nil
    ) -> Future<Decoded> {
        let settings = context?.setting(JSONDecoding.self)
        let decoder = decoder.map(UncheckedDecoder.init) ?? settings?.decoder ?? UncheckedDecoder(JSONDecoder())
        let report = settings?.failure
        return map { data in
            do {
                return try decoder.decoder.decodeBody(Decoded.self, from: data)
            } catch let failure as DecodingFailure {
                throw report?(failure) ?? failure
            }
        }
    }
}
