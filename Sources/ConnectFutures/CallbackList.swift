/// A continuation registered on a pending future.
///
/// It is not generic: it reads the value from the future it captured. Running it may complete a
/// further future; instead of running that future's continuations itself (which would recurse once
/// per chained step), it returns them, and `CallbackList.run()` keeps going in a loop.
@usableFromInline
typealias FutureContinuation = @Sendable () -> CallbackList

/// The continuations of one future, in the order they were added.
///
/// The first one is stored inline because most futures have exactly one (the next step of a chain);
/// only a second one allocates an array.
@usableFromInline
struct CallbackList: Sendable {
    @usableFromInline var first: FutureContinuation?
    @usableFromInline var others: [FutureContinuation]?

    @inlinable
    init() {
        first = nil
        others = nil
    }

    @inlinable
    init(_ continuation: @escaping FutureContinuation) {
        first = continuation
        others = nil
    }

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ continuation: @escaping FutureContinuation) {
        if first == nil {
            first = continuation
        } else if others == nil {
            others = [continuation]
        } else {
            others!.append(continuation)
        }
    }

    /// Runs every continuation and every continuation they release, depth first and in order,
    /// without growing the stack with the length of the chain.
    @inlinable
    func run() {
        guard let first else { return }
        guard others == nil else { return runMany() }
        // The common case: a straight chain where each step has one follower.
        var next = first()
        while let step = next.first {
            if next.others != nil { return next.runMany() }
            next = step()
        }
    }

    @usableFromInline
    func runMany() {
        var stack: [FutureContinuation] = []
        func push(_ list: CallbackList) {
            guard let first = list.first else { return }
            if let others = list.others { stack.append(contentsOf: others.reversed()) }
            stack.append(first)
        }
        push(self)
        while let step = stack.popLast() {
            push(step())
        }
    }
}
