/// What a step of a future chain does with its source's value, as a value: the state the step
/// needs is stored in the step (see ``Future/then(_:)``), where a closure would allocate a
/// context for it: for a step that runs once for every value of a busy producer.
///
/// Same package only.
@usableFromInline
package protocol ValueTransform: Sendable {
    /// The value of the future the step follows.
    associatedtype Input: Sendable
    /// The value of the step's future.
    associatedtype Output: Sendable

    /// The step's value, at once or as the future of it; a throw fails the step's future.
    func proceed(with input: Input) throws -> ValueOrFuture<Output>
}
