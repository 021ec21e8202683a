/// The identity step: its future gives the input as it came. What a producer of
/// ``PendingStep``s uses when nothing is to be done with the input.
@usableFromInline
package struct PassThrough<Value: Sendable>: ValueTransform {
    @inlinable
    package init() {}

    @inlinable
    package func proceed(with input: Value) -> ValueOrFuture<Value> {
        .value(input)
    }
}
