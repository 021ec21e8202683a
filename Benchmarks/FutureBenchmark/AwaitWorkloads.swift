import ConnectFutures

/// `await` on a value that is already there: a future completed long before, next to the two
/// cheapest ways async code gets a value (a call, a continuation resumed at once).
enum AwaitWorkloads {
    static let completed = Future(value: 1)

    @inline(never)
    static func connectFutureValue(_ count: Int) async throws -> Int {
        var total = 0
        for _ in 0..<count { total &+= try await completed.value }
        return total
    }

    @inline(never)
    static func plainAsyncValue() async throws -> Int { 1 }

    @inline(never)
    static func plainAsyncCall(_ count: Int) async throws -> Int {
        var total = 0
        for _ in 0..<count { total &+= try await plainAsyncValue() }
        return total
    }

    @inline(never)
    static func continuationResumedInline(_ count: Int) async throws -> Int {
        var total = 0
        for _ in 0..<count {
            total &+= await withUnsafeContinuation { (continuation: UnsafeContinuation<Int, Never>) in
                continuation.resume(returning: 1)
            }
        }
        return total
    }
}
