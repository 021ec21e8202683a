/// A `Decodable` type that also stands for an empty body; see ``EmptyResponse``.
public protocol EmptyDecodable: Decodable {
    /// The value an empty body decodes to.
    init()
}
