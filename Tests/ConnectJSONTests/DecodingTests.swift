import Dispatch
import Foundation
import Testing

import ConnectFutures

@testable import ConnectJSON

struct Todo: Decodable, Sendable, Equatable {
    struct Tag: Decodable, Sendable, Equatable { let name: String }
    let id: Int
    let title: String
    let tags: [Tag]
}

@Suite("Decoding")
struct DecodingTests {
    @Test func decodesWithAnExplicitOrInferredType() async throws {
        let body = Data(#"{"id":1,"title":"Write tests","tags":[{"name":"a"}]}"#.utf8)
        let todo = try await Future(value: body).decoded(toType: Todo.self).value
        #expect(todo == Todo(id: 1, title: "Write tests", tags: [.init(name: "a")]))
        let inferred: Future<Todo> = Future(value: body).decoded()
        #expect(try await inferred.value.id == 1)
    }

    @Test func usesTheGivenDecoder() async throws {
        struct Item: Decodable, Sendable { let createdAt: Int }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let item = try await Future(value: Data(#"{"created_at":5}"#.utf8)).decoded(toType: Item.self, decoder: decoder)
            .value
        #expect(item.createdAt == 5)
    }

    @Test func failureNamesTheCodingPath() async {
        let body = Data(#"{"id":1,"title":"x","tags":[{"name":"a"},{"name":7}]}"#.utf8)
        let failure = await error(of: Future(value: body).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(failure?.codingPath == "tags[1].name")
        #expect(failure?.typeName.hasSuffix("Todo") == true)
        #expect(failure?.description.contains("tags[1].name") == true)
        #expect(failure?.bodyPreview.hasPrefix(#"{"id":1"#) == true)
    }

    @Test func failureOnNonJSON() async {
        let failure = await error(of: Future(value: Data("<html>".utf8)).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(failure?.codingPath == "")
        #expect(failure?.description.contains("<html>") == true)
        let missing =
            await error(of: Future(value: Data(#"{"id":1}"#.utf8)).decoded(toType: Todo.self)) as? DecodingFailure
        #expect(missing?.reason.contains("title") == true)
    }

    /// The description reads as one sentence: the decoder's own message shortened to what it
    /// found, no doubled period, and no `CodingKeys(…)`.
    @Test func theDescriptionIsOneCleanSentence() async throws {
        struct Item: Decodable, Sendable {
            let title: String
            let count: Int
        }
        func failure(_ json: String) async -> DecodingFailure? {
            await error(of: Future(value: Data(json.utf8)).decoded(toType: Item.self)) as? DecodingFailure
        }
        let mismatch = try #require(await failure(#"{"title":1,"count":2}"#))
        #expect(mismatch.reason.hasPrefix("expected String"))
        #expect(mismatch.reason.contains(", found "), "\(mismatch.reason)")
        let missing = try #require(await failure(#"{"count":2}"#))
        #expect(missing.reason == #"missing key "title""#)
        let null = try #require(await failure(#"{"title":null,"count":2}"#))
        #expect(null.reason.hasPrefix("missing value of type String"))
        let corrupt = try #require(await failure("{"))
        #expect(corrupt.reason.hasPrefix("invalid data: "))
        for text in [mismatch, missing, null, corrupt].map(\.description) {
            #expect(!text.contains(".."), "\(text)")
            #expect(!text.contains("CodingKeys("), "\(text)")
            #expect(!text.contains(". ."), "\(text)")
        }
        #expect(
            DecodingFailure.sentence(#"No value for CodingKeys(stringValue: "title", intValue: nil) here."#)
                == #"No value for "title" here"#)
        #expect(
            DecodingFailure.found(in: "Expected to decode String but found a number instead.") == ", found a number")
        #expect(DecodingFailure.found(in: "Cannot get keyed decoding container") == "")
    }
}
