/// What a step that usually has its value at once, and sometimes must wait for more work,
/// returns: the value, or the future of it. See ``Future/flatMap(valueOrFuture:)`` and
/// ``ValueTransform``.
///
/// For a step that mostly has its answer at once and only sometimes starts more work: returning
/// `.value` skips the completed future a `flatMap` transform would
/// have to allocate. Same package only.
@usableFromInline
package enum ValueOrFuture<Value: Sendable>: Sendable {
    /// The value, now.
    case value(Value)
    /// The future the value comes from.
    case future(Future<Value>)
}
