/// The `ResultSlot` of a `Future<Value>`: `Result<Value, any Error>` with an empty case.
@usableFromInline
enum FutureSlot<Value: Sendable>: ResultSlot {
    case empty
    case success(Value)
    case failure(any Error)

    @inlinable
    static func holding(_ outcome: consuming Result<Value, any Error>) -> Self {
        switch outcome {
        case .success(let value): .success(value)
        case .failure(let error): .failure(error)
        }
    }

    @inlinable
    var held: Result<Value, any Error> {
        switch self {
        case .success(let value): .success(value)
        case .failure(let error): .failure(error)
        case .empty: preconditionFailure("a future's result was read before it completed")
        }
    }

    @inlinable
    func heldValue() throws -> Value {
        switch self {
        case .success(let value): return value
        case .failure(let error): throw error
        case .empty: preconditionFailure("a future's result was read before it completed")
        }
    }
}
