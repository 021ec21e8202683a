/// A ``ValueTransform`` that runs a closure: ``Future/flatMap(valueOrFuture:)``.
@usableFromInline
struct ClosureTransform<Input: Sendable, Output: Sendable>: ValueTransform {
    @usableFromInline let body: @Sendable (Input) throws -> ValueOrFuture<Output>

    @inlinable
    init(_ body: @escaping @Sendable (Input) throws -> ValueOrFuture<Output>) {
        self.body = body
    }

    @inlinable
    func proceed(with input: Input) throws -> ValueOrFuture<Output> {
        try body(input)
    }
}
