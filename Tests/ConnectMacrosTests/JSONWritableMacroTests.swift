#if Macros
import ConnectFutures
import ConnectMacros
import ConnectTestServer
import Foundation
import Testing

@testable import Connect

@JSONWritable
struct Address: Codable {
    var street: String
    var zip: String?
}

@JSONWritable
enum Priority: String, Codable {
    case low, high = "HIGH"
}

@JSONWritable
enum Level: Int, Codable {
    case one = 1, two
}

@JSONWritable
struct Todo: Codable {
    let id: Int
    var title: String
    var done = false
    var note: String?
    var priority: Priority
    var level: Level?
    var address: Address?
    var tags: [String]
    var scores: [String: Double]
    var `default`: Bool
    var ratio: Float = 0.5
    var due = Date(timeIntervalSinceReferenceDate: 1_000.25)
    var link = URL(string: "https://x.example/todos/7")
    var token = UUID()
    var attachment = Data([1, 2, 3])
    var watched = 0 {
        didSet {}
    }
    var doubled: Int { id * 2 }
    static let version = 3
}

/// The README's example, word for word (nested, so that its name stays the README's).
enum ReadmeExample {
    @JSONWritable
    struct Todo: Codable {
        let id: Int
        let title: String
        let tags: [String]
        let note: String?  // left out when nil, as Encodable does
    }
}

@JSONWritable
struct Renamed: Codable {
    var userName: String
    var hidden = 0
    var age: Int

    enum CodingKeys: String, CodingKey {
        case age = "years"
        case userName = "user/name"
    }
}

@JSONWritable
struct Page<Item: Codable>: Codable {
    var items: [Item]
    var next: Int?
}

@JSONWritable
struct Nothing: Codable {}

/// Types that `@JSONWritable` made writable, compiled: their writers write the bytes their
/// synthesized `Encodable` conformances make `JSONEncoder` write, and a request sends them so.
@Suite("@JSONWritable")
struct JSONWritableMacroTests {
    static let todo = Todo(
        id: 7, title: "über \"quoted\" / slashed", note: nil, priority: .high, level: .two,
        address: Address(street: "Main St. 1", zip: nil), tags: ["a", "b"], scores: ["x": 1.5], default: true)

    /// The writer's document and `JSONEncoder`'s for `value`, compared with their objects' keys
    /// sorted: `JSONEncoder` on Linux writes them in its dictionary's order. The order the writer
    /// keeps is checked byte for byte where it matters.
    static func expectSameJSON<Value: JSONWritable>(
        _ value: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        func canonical(_ data: Data) throws -> String {
            let document = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            return String(
                decoding: try JSONSerialization.data(
                    withJSONObject: document, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
        }
        let written = try JSONWriter.data(of: value, escapingSlashes: true).get()
        #expect(try canonical(written) == canonical(JSONEncoder().encode(value)), sourceLocation: sourceLocation)
    }

    @Test func storedPropertiesInOrderWithNilsLeftOut() throws {
        try Self.expectSameJSON(Self.todo)
        var full = Self.todo
        full.note = "n"
        full.level = nil
        full.address?.zip = "12345"
        full.watched = 3
        try Self.expectSameJSON(full)
        let address = try JSONWriter.data(of: Address(street: "s", zip: "z"), escapingSlashes: true).get()
        #expect(String(decoding: address, as: UTF8.self) == #"{"street":"s","zip":"z"}"#)
    }

    @Test func theReadmeExampleWritesWhatItSays() throws {
        let todo = ReadmeExample.Todo(id: 1, title: "Buy milk", tags: ["home"], note: nil)
        try Self.expectSameJSON(todo)
        #expect(
            try JSONWriter.data(of: todo, escapingSlashes: true).get()
                == Data(#"{"id":1,"title":"Buy milk","tags":["home"]}"#.utf8))
        let noted = ReadmeExample.Todo(id: 2, title: "t", tags: [], note: "n")
        #expect(
            try JSONWriter.data(of: noted, escapingSlashes: true).get()
                == Data(#"{"id":2,"title":"t","tags":[],"note":"n"}"#.utf8))
    }

    @Test func codingKeysChooseTheMembersAndTheirKeys() throws {
        let renamed = Renamed(userName: "ann", hidden: 9, age: 30)
        try Self.expectSameJSON(renamed)
        #expect(
            try JSONWriter.data(of: renamed, escapingSlashes: false).get()
                == Data(#"{"years":30,"user/name":"ann"}"#.utf8))
    }

    @Test func rawValueEnumsGenericsAndEmptyStructs() throws {
        try Self.expectSameJSON([Priority.low, .high])
        try Self.expectSameJSON([Level.one, .two])
        try Self.expectSameJSON(Page(items: [Self.todo], next: 2))
        try Self.expectSameJSON(Page<Int>(items: [], next: nil))
        try Self.expectSameJSON(Nothing())
    }

    @Test func aRequestSendsTheWrittenBytes() async throws {
        let server = try TestServer { request in TestResponse(body: request.body) }
        defer { server.shutdown() }
        let connect = Connect()
        let connector = Endpoint(baseURL: server.baseURL, parameters: Parameter.jsonObject(value: Self.todo))
        let response = try await connect.response(connector).value
        #expect(response.body == (try JSONWriter.data(of: Self.todo, escapingSlashes: true).get()))
        #expect(
            response.body.starts(
                with: Data(#"{"id":7,"title":"über \"quoted\" \/ slashed","done":false,"priority":"HIGH""#.utf8)))
    }

    /// A connector posting its parameters to `/echo`.
    struct Endpoint: Connector {
        var baseURL: URL
        var endpoint: String { "/echo" }
        var method: HTTPMethod { .post }
        var headers: [HTTPHeader] { [] }
        var parameters: (any ParametersRepresentable)?
    }
}
#endif
