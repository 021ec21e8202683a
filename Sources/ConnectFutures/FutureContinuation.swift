/// What runs when a future completes: `body(target, source)`, where `source` is that future.
///
/// Chain steps (`MapStep`, `FlatMapStep`, `ResultStep`, `TransformStep`) are the next future
/// and the continuation at once: `target` is the step itself and `body` a closure that captures
/// nothing, so a step costs one allocation, not one for the future and one for a closure
/// context. The closure is written where the types are concrete, so it runs specialized code.
///
/// Running a continuation may complete a further future. Instead of running that future's
/// continuations itself (which would recurse once per chained step), it returns that future,
/// unretained, and `FutureCore.runWaiting()` keeps going in a loop; `nil` when nothing waits on
/// it. The continuation holds what it completes (as its target, or in its closure), and the loop
/// keeps the continuation until that future's own continuations have run.
@usableFromInline
struct FutureContinuation: Sendable {
    @usableFromInline typealias Body =
        @Sendable (_ target: (any AnyObject & Sendable)?, _ source: FutureCore) -> Unmanaged<FutureCore>?

    @usableFromInline let target: (any AnyObject & Sendable)?
    @usableFromInline let body: Body

    @inlinable
    init(target: (any AnyObject & Sendable)?, body: @escaping Body) {
        self.target = target
        self.body = body
    }

    /// A continuation that is a closure with everything it needs captured.
    @inlinable
    init(_ closure: @escaping @Sendable () -> Unmanaged<FutureCore>?) {
        target = nil
        body = { _, _ in closure() }
    }

    /// Runs the continuation; returns the future it completed when continuations wait on that.
    @inlinable
    func run(after source: FutureCore) -> Unmanaged<FutureCore>? {
        body(target, source)
    }

    /// Runs the continuation, then the continuations of the future it completes, and so on.
    @inlinable
    func runToTheEnd(after source: FutureCore) {
        guard let following = run(after: source) else { return }
        withExtendedLifetime(self) { following._withUnsafeGuaranteedRef { $0.runWaiting() } }
    }
}
