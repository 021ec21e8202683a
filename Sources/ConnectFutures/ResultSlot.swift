/// Where a future keeps its result: empty while pending, then the result.
///
/// The storage is generic over this whole slot type rather than over `Value`, so that its
/// deinit destroys a field whose type is the class's own generic argument: a field of a type
/// derived from the argument would make every deinit look that type's metadata up in the
/// runtime's hash table. An empty case, rather than a placeholder error, means a pending future
/// holds nothing that must be retained and released, and one enum rather than an optional
/// `Result` keeps the deinit to a single layer of generic destruction.
@usableFromInline
protocol ResultSlot {
    associatedtype Outcome
    /// What a success holds.
    associatedtype Value
    /// The slot of a pending future.
    static var empty: Self { get }
    /// A slot holding a failure: what cancelling or abandoning a future stores.
    static func failure(_ error: any Error) -> Self
    /// A slot holding `outcome`.
    static func holding(_ outcome: consuming Outcome) -> Self
    /// The outcome of a slot known to hold one.
    var held: Outcome { get }
    /// The value of a slot known to hold an outcome, or its error thrown; no `Outcome` is made.
    func heldValue() throws -> Value
}
