/// A type decodable from an empty body, for endpoints that answer `204 No Content`:
/// `deleteTodo(id: 1).decoded(toType: EmptyResponse.self)`, where `deleteTodo` gives the body as a
/// `Future<Data>`.
///
/// `decoded(toType:)` gives an `EmptyResponse` for an empty body without asking the decoder
/// (JSON has no empty document), and decodes any JSON body as usual, ignoring its contents.
public struct EmptyResponse: EmptyDecodable, Hashable, Sendable {
    /// The empty value.
    public init() {}
    public init(from decoder: any Decoder) throws {}
}
