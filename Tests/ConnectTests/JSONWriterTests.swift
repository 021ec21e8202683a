import ConnectFutures
import ConnectTestServer
import Foundation
import SharedTestSupport
import Testing

@testable import Connect
@testable import ConnectJSON

/// Values that write their own JSON (`JSONWritable`) against `JSONEncoder`: the same bytes for the
/// same value, a typed error for a writer used wrongly, and the request paths that choose it.
@Suite("JSON writer")
struct JSONWriterTests {
    struct Todo: Encodable, JSONWritable {
        var id: Int
        var title: String
        var done: Bool
        var tags: [String] = []
        var score: Double? = nil
        var rank: Int8? = nil
        var parent: Int?? = nil

        func write(to json: inout JSONWriter) {
            json.writeObject { json in
                json.write(id, forKey: "id")
                json.write(title, forKey: "title")
                json.write(done, forKey: "done")
                json.write(tags, forKey: "tags")
                json.write(score, forKey: "score")
                json.write(rank, forKey: "rank")
                json.write(parent, forKey: "parent")
            }
        }
    }

    struct List: Encodable, JSONWritable {
        var items: [Todo]
        var counts: [[UInt64]]
        var ratios: [Float]
        var note: String?

        func write(to json: inout JSONWriter) {
            json.writeObject { json in
                json.write(items, forKey: "items")
                json.write(counts, forKey: "counts")
                json.write(ratios, forKey: "ratios")
                json.write(note, forKey: "note")
            }
        }
    }

    /// Writes one thing with its writer and another through `Codable`, to see which path a
    /// request took; a real conformance writes the same in both.
    struct TellsPathsApart: Encodable, JSONWritable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("codable", forKey: .via)
        }
        enum Keys: String, CodingKey { case via }

        func write(to json: inout JSONWriter) {
            json.writeObject { json in json.write("writer", forKey: "via") }
        }
    }

    /// A writer that makes a mistake: `Encodable` only to be a request body.
    struct Mistaken: Encodable, JSONWritable {
        let mistake: @Sendable (inout JSONWriter) -> Void
        func encode(to encoder: any Encoder) throws {}
        func write(to json: inout JSONWriter) { mistake(&json) }
    }

    static func written(_ value: some JSONWritable, escapingSlashes: Bool = true) -> Result<Data, any Error> {
        JSONWriter.data(of: value, escapingSlashes: escapingSlashes)
    }

    /// `value` as a request's JSON body, or the error the request fails with.
    static func requestBody(_ value: some JSONWritable) -> Result<RequestBody, any Error> {
        Result { try RequestBody.json(value) }
    }

    /// The same document however its objects' keys are ordered: `JSONEncoder` on Linux writes
    /// them in its dictionary's order, the writer in the order the value writes them.
    static func same(_ written: Result<Data, any Error>, _ encoded: Data) throws -> Bool {
        try canonicalJSON(written.get()) == canonicalJSON(encoded)
    }

    static let strings = [
        "", "plain", "a \"quote\" and a \\ backslash", "a/slash", "tab\tnew\nline\rreturn",
        "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "é, ß, 日本, 🙂", "e\u{301} (combining)", String(repeating: "long ", count: 200)
    ]

    @Test(arguments: strings)
    func stringsAreEscapedAsJSONEncoderEscapesThem(text: String) throws {
        for escapingSlashes in [true, false] {
            let encoder = JSONEncoder()
            if !escapingSlashes { encoder.outputFormatting = .withoutEscapingSlashes }
            let todo = Todo(id: 1, title: text, done: false, tags: [text, text])
            #expect(try Self.same(Self.written(todo, escapingSlashes: escapingSlashes), encoder.encode(todo)))
            #expect(
                try Self.written([text, text], escapingSlashes: escapingSlashes).get() == encoder.encode([text, text]))
            #expect(try Self.written(text, escapingSlashes: escapingSlashes).get() == encoder.encode(text))
        }
    }

    /// Keys are escaped as strings are, after a comma or first in their object.
    @Test(arguments: strings)
    func keysAreEscapedAsJSONEncoderEscapesThem(key: String) throws {
        struct TwoMembers: Encodable, JSONWritable {
            let key: String
            func encode(to encoder: any Encoder) throws { try [key: 1, "first": 2].encode(to: encoder) }
            func write(to json: inout JSONWriter) {
                json.writeObject { json in
                    json.write(1, forKey: key)
                    json.write(2, forKey: "first")
                }
            }
        }
        struct SecondMember: Encodable, JSONWritable {
            let key: String
            func encode(to encoder: any Encoder) throws { try ["first": 2, key: 1].encode(to: encoder) }
            func write(to json: inout JSONWriter) {
                json.writeObject { json in
                    json.write(2, forKey: "first")
                    json.write([1], forKey: key)
                }
            }
        }
        for escapingSlashes in [true, false] {
            let encoder = JSONEncoder()
            if !escapingSlashes { encoder.outputFormatting = .withoutEscapingSlashes }
            #expect(
                try Self.same(
                    Self.written(TwoMembers(key: key), escapingSlashes: escapingSlashes),
                    encoder.encode(TwoMembers(key: key))))
            let second = try Self.written(SecondMember(key: key), escapingSlashes: escapingSlashes).get()
            let expected = #"{"first":2,"# + String(decoding: try encoder.encode(key), as: UTF8.self) + ":[1]}"
            #expect(String(decoding: second, as: UTF8.self) == expected)
        }
    }

    static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.5, 1e-7, 123456789.125, 1e21, 1e22, -2.5e-300, .greatestFiniteMagnitude,
        .leastNonzeroMagnitude
    ]

    @Test(arguments: numbers)
    func numbersAreWrittenAsJSONEncoderWritesThem(number: Double) throws {
        let todo = Todo(id: Int(exactly: number.rounded(.towardZero)) ?? 7, title: "n", done: true, score: number)
        #expect(try Self.same(Self.written(todo), JSONEncoder().encode(todo)))
        #expect(try Self.written(number).get() == JSONEncoder().encode(number))
        #expect(try Self.written([number, -number]).get() == JSONEncoder().encode([number, -number]))
        if Float(number).isFinite {
            #expect(try Self.written(Float(number)).get() == JSONEncoder().encode(Float(number)))
        }
    }

    @Test func integersOfEverySizeAndTheirLimits() throws {
        #expect(try Self.written([Int.min, Int.max, 0, -1]).get() == JSONEncoder().encode([Int.min, Int.max, 0, -1]))
        #expect(try Self.written([UInt64.max, 0]).get() == JSONEncoder().encode([UInt64.max, 0]))
        #expect(try Self.written([Int8.min, Int8.max]).get() == JSONEncoder().encode([Int8.min, Int8.max]))
        #expect(try Self.written([Int16.min, Int16.max]).get() == JSONEncoder().encode([Int16.min, Int16.max]))
        #expect(try Self.written([Int32.min, Int32.max]).get() == JSONEncoder().encode([Int32.min, Int32.max]))
        #expect(try Self.written([UInt.max]).get() == JSONEncoder().encode([UInt.max]))
        #expect(try Self.written([UInt8.max]).get() == JSONEncoder().encode([UInt8.max]))
        #expect(try Self.written([UInt16.max]).get() == JSONEncoder().encode([UInt16.max]))
        #expect(try Self.written([UInt32.max]).get() == JSONEncoder().encode([UInt32.max]))
        #expect(try Self.written([Int64.min]).get() == JSONEncoder().encode([Int64.min]))
    }

    @Test func nestedObjectsArraysAndOptionalsMatchJSONEncoder() throws {
        let lists = [
            List(items: [], counts: [], ratios: [], note: nil),
            List(items: [Todo(id: 1, title: "one", done: true)], counts: [[]], ratios: [0.5], note: "n"),
            List(
                items: (0..<22).map {
                    Todo(
                        id: $0, title: "todo \($0)", done: $0 % 2 == 0, tags: $0 % 3 == 0 ? ["a", "b/c"] : [],
                        score: $0 % 4 == 0 ? Double($0) / 3 : nil, rank: $0 % 5 == 0 ? -5 : nil,
                        parent: $0 % 6 == 0 ? .some(nil) : $0 % 6 == 1 ? .some($0) : nil)
                },
                counts: [[1, 2], [], [UInt64.max]], ratios: [1, 0.25, 3e10], note: "")
        ]
        for list in lists {
            #expect(try Self.same(Self.written(list), JSONEncoder().encode(list)))
        }
        // Members come in the order the value writes them.
        let first = String(decoding: try Self.written(lists[1]).get(), as: UTF8.self)
        #expect(
            first
                == #"{"items":[{"id":1,"title":"one","done":true,"tags":[]}],"counts":[[]],"ratios":[0.5],"note":"n"}"#)
        // An optional written as a value, not as a member: null, as JSONEncoder writes it.
        let optionals: [Int?] = [1, nil, 3]
        #expect(try Self.written(optionals).get() == JSONEncoder().encode(optionals))
        // An optional inside an optional member: a present `.some(nil)` is written as null.
        let withNullParent = Todo(id: 1, title: "t", done: false, parent: .some(nil))
        #expect(String(decoding: try Self.written(withNullParent).get(), as: UTF8.self).hasSuffix(#""parent":null}"#))
    }

    /// A body encoded through `Codable`, not written by itself.
    struct Priced: Encodable {
        var price: Decimal
    }

    /// Foundation's value types as `JSONEncoder`'s default strategies write them, byte for byte,
    /// with slashes escaped and without: URLs, UUIDs, dates, data and decimals.
    @Test func foundationValuesMatchJSONEncoder() throws {
        let urls = [
            URL(string: "https://x.example/a/b?c=d&e=f#g")!, URL(fileURLWithPath: "/tmp/some file"),
            URL(string: "relative/path", relativeTo: URL(string: "http://h.example/base/"))!
        ]
        let uuids = [UUID(), UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!]
        let dates = [
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 123_456.789),
            Date(timeIntervalSince1970: -1), Date()
        ]
        let data = [Data(), Data([0]), Data([0xff, 0xfe, 0x3e, 0x3f]), Data((0..<255).map(UInt8.init))]
        let decimals = [
            Decimal(string: "12.50")!, Decimal(string: "-0.001")!, Decimal(0),
            Decimal(string: "123456789012345678901234567890")!, Decimal(string: "1e-20")!
        ]
        for escapingSlashes in [true, false] {
            let encoder = JSONEncoder()
            if !escapingSlashes { encoder.outputFormatting = .withoutEscapingSlashes }
            #expect(try Self.written(urls, escapingSlashes: escapingSlashes).get() == encoder.encode(urls))
            #expect(try Self.written(uuids, escapingSlashes: escapingSlashes).get() == encoder.encode(uuids))
            #expect(try Self.written(dates, escapingSlashes: escapingSlashes).get() == encoder.encode(dates))
            #expect(try Self.written(data, escapingSlashes: escapingSlashes).get() == encoder.encode(data))
            #expect(try Self.written(decimals, escapingSlashes: escapingSlashes).get() == encoder.encode(decimals))
        }
        // JSONEncoder writes a decimal NaN as `NaN`, which is not JSON; the writer refuses it, as
        // JSONEncoder refuses a Double NaN, and so does a request whose body encodes one.
        #expect(String(decoding: try JSONEncoder().encode([Decimal.nan]), as: UTF8.self) == "[NaN]")
        #expect(throws: EncodingError.self) { try Self.written([Decimal.nan]).get() }
        #expect(throws: ConnectError.self) {
            try RequestBuilderTests.build("/x", method: .post, Parameter.jsonObject(value: [Decimal.nan])).get()
        }
        #expect(throws: ConnectError.self) {
            try RequestBuilderTests.build("/x", method: .post, Parameter.jsonObject(value: Priced(price: .nan))).get()
        }
    }

    /// A dictionary is an object with the same members; `JSONEncoder` keeps no order of its own
    /// for them either. A dictionary body, as the README's examples send, skips `Codable` too.
    @Test func stringKeyedDictionariesAreObjects() throws {
        let dictionaries: [[String: [Int?]]] = [
            [:], ["one": [1]], ["a": [], "b/c": [nil, 2], "\u{1}": [3], "é": [4], "long key": [5, 6]]
        ]
        for dictionary in dictionaries {
            #expect(try Self.same(Self.written(dictionary), JSONEncoder().encode(dictionary)))
        }
        #expect(try Self.written(["prompt": "hi"]).get() == Data(#"{"prompt":"hi"}"#.utf8))
        let request = try RequestBuilderTests.build(
            "/x", method: .post, Parameter.jsonObject(value: ["prompt": "p", "stream": "true"])
        ).get()
        #expect(
            try Self.same(
                .success(try #require(request.body?.data)), JSONEncoder().encode(["prompt": "p", "stream": "true"])))
    }

    static let mistakes: [(String, @Sendable (inout JSONWriter) -> Void)] = [
        ("nothing", { _ in }),
        (
            "two values",
            { json in
                json.write(1)
                json.write(2)
            }
        ),
        ("a member outside an object", { json in json.write(1, forKey: "id") }),
        ("a member inside an array", { json in json.writeArray { json in json.write(1, forKey: "id") } }),
        ("a value without a key", { json in json.writeObject { json in json.write("loose") } }),
        (
            "a member without a value",
            { json in json.writeObject { json in json.write(Mistaken { _ in }, forKey: "empty") } }
        ),
        (
            "a member with two values",
            { json in
                json.writeObject { json in
                    json.write(
                        Mistaken {
                            $0.write(1)
                            $0.write(2)
                        }, forKey: "two")
                }
            }
        )
    ]

    static let unwritableNumbers: [(String, @Sendable (inout JSONWriter) -> Void)] = [
        ("NaN", { json in json.write(Double.nan) }),
        (
            "an infinity in an object",
            { json in json.writeObject { json in json.write(-Double.infinity, forKey: "x") } }
        ),
        ("a Float NaN in an array", { json in json.writeArray { json in json.writeFloatingPoint(Float.nan) } })
    ]

    @Test(arguments: mistakes.indices)
    func aWriterUsedWronglyFailsTheRequestWithATypedError(index: Int) throws {
        let (name, mistake) = Self.mistakes[index]
        guard case .failure(let error) = Self.requestBody(Mistaken(mistake: mistake)),
            case ConnectError.invalidRequest(let message) = error
        else {
            Issue.record("\(name): expected invalidRequest")
            return
        }
        #expect(message.hasPrefix("the JSON body could not be written: "), "\(name): \(message)")
    }

    /// As with `JSONEncoder`, whose error `RequestBody.json` throws and `Parameter.jsonObject`
    /// wraps.
    @Test(arguments: unwritableNumbers.indices)
    func aNumberJSONCannotHoldFailsAsWithJSONEncoder(index: Int) throws {
        let (name, mistake) = Self.unwritableNumbers[index]
        guard case .failure(let error) = Self.written(Mistaken(mistake: mistake)),
            case EncodingError.invalidValue = error
        else {
            Issue.record("\(name): expected EncodingError.invalidValue")
            return
        }
        #expect(throws: EncodingError.self) { try RequestBody.json([Double.nan]) }
        #expect(throws: ConnectError.self) {
            try RequestBuilderTests.build("/x", method: .post, Parameter.jsonObject(value: [Double.nan])).get()
        }
    }

    @Test func theMistakeIsNamed() throws {
        guard case .failure(let error) = Self.requestBody(Mistaken { json in json.write(1, forKey: "id") }),
            case ConnectError.invalidRequest(let message) = error
        else {
            Issue.record("expected invalidRequest")
            return
        }
        #expect(message.contains(#""id" outside an object"#))
    }

    // MARK: The request paths

    @Test func jsonObjectParametersUseTheWriterWithTheDefaultEncoder() throws {
        let request = try RequestBuilderTests.build(
            "/todos", method: .post, Parameter.jsonObject(value: TellsPathsApart())
        ).get()
        #expect(request.body?.data == Data(#"{"via":"writer"}"#.utf8))
        #expect(request.headers.value(for: "Content-Type") == "application/json")
        let body = try RequestBody.json(TellsPathsApart())
        #expect(body.data == Data(#"{"via":"writer"}"#.utf8))
    }

    @Test func anEncoderWithOtherSettingsGoesThroughCodable() throws {
        let request = try RequestBuilderTests.build(
            "/todos", method: .post, Parameter.jsonObject(value: TellsPathsApart())
        ) { configuration in
            configuration.jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
        }.get()
        #expect(request.body?.data == Data(#"{"via":"codable"}"#.utf8))
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        #expect(try RequestBody.json(TellsPathsApart(), encoder: sorted).data == Data(#"{"via":"codable"}"#.utf8))
        // Without escaping slashes is one of the writer's own settings.
        let unescaped = JSONEncoder()
        unescaped.outputFormatting = .withoutEscapingSlashes
        #expect(try RequestBody.json(["a/b"], encoder: unescaped).data == Data(#"["a/b"]"#.utf8))
    }

    @Test func aMistakeFailsTheRequestBeforeAnythingIsSent() throws {
        let mistaken = Mistaken { json in json.writeObject { json in json.write("loose") } }
        guard
            case .failure(.invalidRequest(let message)) = RequestBuilderTests.build(
                "/todos", method: .post, Parameter.jsonObject(value: mistaken))
        else {
            Issue.record("expected invalidRequest")
            return
        }
        #expect(message.contains("without a key"))
    }

    @Test func aWritableBodyReachesTheServerAsWritten() async throws {
        let server = try TestServer { request in TestResponse(body: request.body) }
        defer { server.shutdown() }
        let list = List(
            items: [Todo(id: 3, title: "über/all", done: false, tags: ["x"])], counts: [[7]], ratios: [2], note: nil)
        let response = try await sharedConnect.response(
            TestConnector(server, "/echo", method: .post, parameters: Parameter.jsonObject(value: list))
        ).value
        #expect(try Self.same(.success(response.body), JSONEncoder().encode(list)))
        #expect(response.body == (try Self.written(list).get()))
    }
}
