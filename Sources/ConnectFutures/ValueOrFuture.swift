/// What a step that usually has its value at once, and sometimes must wait for more work,
/// returns: the value, or the future of it. See ``Future/flatMap(valueOrFuture:)`` and
/// ``StepTransform``.
///
/// Connect's redirect step is one: most responses are the final one, and only a redirect sends
/// another request. Returning `.value` skips the completed future a `flatMap` transform would
/// have to allocate. Same package only.
@usableFromInline
package enum ValueOrFuture<Value: Sendable>: Sendable {
    /// The value, now.
    case value(Value)
    /// The future the value comes from.
    case future(Future<Value>)
}
