/// What runs when a future completes: `body(target, source)`, where `source` is that future.
///
/// Chain steps (`MapStep`, `FlatMapStep`, `ResultStep`) are the next future and the
/// continuation at once: `target` is the step itself and `body` a closure that captures nothing,
/// so a step costs one allocation, not one for the future and one for a closure context. The
/// closure is written where the types are concrete, so it runs specialized code. Running a
/// continuation may complete a further future; instead of running that future's continuations
/// itself (which would recurse once per chained step), it returns them, and `CallbackList.run()`
/// keeps going in a loop; `nil` when nothing follows, so the end of a chain builds no empty list.
@usableFromInline
struct FutureContinuation: Sendable {
    @usableFromInline typealias Body = @Sendable (_ target: (any AnyObject & Sendable)?, _ source: AnyObject) -> CallbackList?

    @usableFromInline let target: (any AnyObject & Sendable)?
    @usableFromInline let body: Body

    @inlinable
    init(target: (any AnyObject & Sendable)?, body: @escaping Body) {
        self.target = target
        self.body = body
    }

    /// A continuation that is a closure with everything it needs captured.
    @inlinable
    init(_ closure: @escaping @Sendable () -> CallbackList?) {
        target = nil
        body = { _, _ in closure() }
    }

    @inlinable
    func run(after source: AnyObject) -> CallbackList? {
        body(target, source)
    }
}

/// The continuations of one completed future, in the order they were added, with that future.
///
/// The first one is stored inline because most futures have exactly one (the next step of a chain);
/// only a second one allocates an array.
///
/// The list does not retain its future: whoever runs a list holds the future until the list has
/// run. A promise holds its future while completing it; the continuation that completed a step
/// holds the step (as its target or in its closure), and `run()` keeps that continuation until
/// the step's own continuations have run; a list sent to a queue travels with its future. That
/// saves a retain and a release on every step of a chain.
@usableFromInline
struct CallbackList: @unchecked Sendable {
    // @unchecked: `source` is an unretained reference to a `Sendable` future (see above).
    /// The future these continuations wait for; set when it completes and hands them out.
    @usableFromInline var source: Unmanaged<AnyObject>?
    @usableFromInline var first: FutureContinuation?
    @usableFromInline var others: [FutureContinuation]?

    @inlinable
    init() {
        source = nil
        first = nil
        others = nil
    }

    @inlinable
    var isEmpty: Bool { first == nil }

    @inlinable
    mutating func append(_ continuation: FutureContinuation) {
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
    consuming func run() {
        guard others == nil else { return runMany() }
        // The common case: a straight chain where each step has one follower. Each list is
        // taken apart rather than copied, so no continuation is retained only to be released.
        var next = self
        // The continuation that produced `next`: it holds `next`'s future until that has run.
        var producer: FutureContinuation?
        while true {
            guard let step = next.first.take(), let source = next.source,
                let following = source._withUnsafeGuaranteedRef({ step.run(after: $0) })
            else { return }
            next = following
            // Moved, not copied: the previous producer is released here, once its step has run.
            producer = consume step
            if next.others != nil { return withExtendedLifetime(producer) { next.runMany() } }
        }
    }

    /// `run()` for lists with more than one continuation: each waiting continuation keeps its
    /// future alive on the stack.
    @usableFromInline
    func runMany() {
        var stack: [(FutureContinuation, AnyObject)] = []
        func push(_ list: CallbackList) {
            guard let first = list.first, let source = list.source?.takeUnretainedValue() else { return }
            if let others = list.others {
                for continuation in others.reversed() { stack.append((continuation, source)) }
            }
            stack.append((first, source))
        }
        push(self)
        while let (step, source) = stack.popLast() {
            if let following = step.run(after: source) { push(following) }
        }
    }
}
