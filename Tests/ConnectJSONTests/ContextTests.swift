import Dispatch
import Foundation
import Testing

import ConnectFutures

@testable import ConnectJSON

/// How a chain's context reaches `decoded(toType:)`.
@Suite("Decoding settings")
struct DecodingContextTests {
    struct Wrapped: Error { let failure: DecodingFailure }

    @Test func decodingFailuresAreWrappedByTheContext() async {
        let context = FutureContext(decodingFailure: { Wrapped(failure: $0) })
        let promise = Promise<Data>(context: context)
        let decoded = promise.future.map { $0 }.decoded(toType: Todo.self)
        promise.succeed(Data("[]".utf8))
        let wrapped = await error(of: decoded) as? Wrapped
        #expect(wrapped?.failure.typeName.hasSuffix("Todo") == true)
    }

    @Test func theContextsDecoderDecodesAndAnotherQueueKeepsIt() async throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let context = FutureContext(decodingFailure: { Wrapped(failure: $0) }, jsonDecoder: decoder)
        #expect(context.decodingFailure != nil)
        let body = Data(#"{"id":1,"title":"Snake","tags":[],"due_date":"soon"}"#.utf8)
        struct Dated: Decodable, Sendable { let dueDate: String }
        let queue = DispatchQueue(label: "elsewhere")
        let moved = Future(result: .success(body), context: context).delivered(on: queue)
        #expect(moved.context !== context && moved.context?.callbackQueue === queue)
        #expect(try await moved.decoded(toType: Dated.self).value.dueDate == "soon")
        let wrapped = await error(of: moved.map { _ in Data("[]".utf8) }.decoded(toType: Dated.self)) as? Wrapped
        #expect(wrapped != nil)
    }

    @Test func aContextWithoutDecodingSettingsDecodesWithADefaultDecoder() async throws {
        let context = FutureContext(callbackQueue: nil)
        #expect(context.decodingFailure == nil)
        let body = Data(#"{"id":1,"title":"Plain","tags":[]}"#.utf8)
        let todo = try await Future(result: .success(body), context: context).decoded(toType: Todo.self).value
        #expect(todo.title == "Plain")
        #expect(
            await error(of: Future(result: .success(Data("[]".utf8)), context: context).decoded(toType: Todo.self))
                is DecodingFailure)
    }
}

/// The error `future` fails with, or `nil` when it succeeds.
func error<Value>(of future: Future<Value>) async -> (any Error)? {
    await withCheckedContinuation { continuation in
        future.observe { result in
            if case .failure(let error) = result {
                continuation.resume(returning: error)
            } else {
                continuation.resume(returning: nil)
            }
        }
    }
}
