import Foundation
import SharedTestSupport
import Testing

@testable import ConnectJSON

/// The JSON body writer against JSONEncoder: the same bytes, or JSONEncoder's own when the
/// writer steps aside.
@Suite("JSON body writer")
struct JSONBodyWriterTests {
    struct Item: Codable, Equatable {
        var id: Int
        var title: String
        var done: Bool
        var tags: [String] = []
        var score: Double? = nil
        var due: Date? = nil
        var attachment: Data? = nil
        var link: URL? = nil
        var price: Decimal? = nil
        var nested: [String: [Int]]? = nil
    }

    final class Base: Encodable {
        var base = 1
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(base, forKey: .base)
        }
        enum Keys: String, CodingKey { case base, extra, inner, list }
    }

    /// A subclass that adds its keys to its superclass's object, as JSONEncoder merges them.
    final class Derived: Encodable {
        let base = Base()
        func encode(to encoder: any Encoder) throws {
            try base.encode(to: encoder)
            var container = encoder.container(keyedBy: Base.Keys.self)
            try container.encode("more", forKey: .extra)
        }
    }

    /// Nested containers, written after the outer container moved on: a stream cannot go back.
    struct Interleaved: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Base.Keys.self)
            var inner = container.nestedContainer(keyedBy: Base.Keys.self, forKey: .inner)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            try inner.encode(2, forKey: .base)
        }
    }

    /// An object whose member is an object with the same keys: the inner object's keys end
    /// with it, and the outer one's are still checked, `repeatsBase` writing `base` twice.
    struct KeysAroundANestedObject: Encodable {
        let repeatsBase: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Base.Keys.self)
            try container.encode(1, forKey: .base)
            var inner = container.nestedContainer(keyedBy: Base.Keys.self, forKey: .inner)
            try inner.encode(2, forKey: .list)
            try inner.encode(3, forKey: .base)
            var deeper = inner.nestedContainer(keyedBy: Base.Keys.self, forKey: .inner)
            try deeper.encode(4, forKey: .inner)
            try container.encode(5, forKey: repeatsBase ? .base : .list)
        }
    }

    struct DuplicateKey: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Base.Keys.self)
            try container.encode(1, forKey: .base)
            try container.encode(2, forKey: .base)
        }
    }

    /// Keys in the order given, each with its index as the value; two keys that are one `String`
    /// to Swift (canonically equivalent) need not be the same bytes.
    struct Keys: Encodable {
        let names: [String]
        struct Key: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (index, name) in names.enumerated() {
                try container.encode(index, forKey: Key(stringValue: name))
            }
        }
    }

    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct SuperEncoding: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Base.Keys.self)
            try Base().encode(to: container.superEncoder(forKey: .inner))
        }
    }

    /// Keeps the container it writes to in `Stash`, for the value after it to write to.
    final class Stash {
        var container: KeyedEncodingContainer<Base.Keys>?
    }

    /// The first element keeps its object's container; the second writes its own member, then
    /// one more through the first element's container, after that object was written.
    struct KeepsItsContainer: Encodable {
        let stash: Stash
        let isFirst: Bool
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Base.Keys.self)
            try container.encode(isFirst ? 1 : 2, forKey: .base)
            if isFirst {
                stash.container = container
            } else {
                try stash.container?.encode(3, forKey: .extra)
            }
        }
    }

    /// A tree of one type: each level's object is open while the next is written.
    struct Node: Encodable {
        let name: String
        let children: [Node]
    }

    /// An object of a key type of its own at every level, more of them than the writer keeps.
    struct Chain: Encodable {
        let depth: Int
        func encode(to encoder: any Encoder) throws {
            try encode(level: 0, to: encoder.container(keyedBy: Keys.Key.self))
        }
        private func encode<K: CodingKey>(level: Int, to container: KeyedEncodingContainer<K>) throws {
            var container = container
            try container.encode(level, forKey: K(stringValue: "level")!)
            guard level < depth else { return }
            try encodeNested(level: level, in: &container)
        }
        private func encodeNested<K: CodingKey>(level: Int, in container: inout KeyedEncodingContainer<K>) throws {
            // A distinct key type per level, up to 20, by nesting a generic wrapper.
            func nested<N: CodingKey>(_: N.Type) throws {
                try encode(
                    level: level + 1, to: container.nestedContainer(keyedBy: N.self, forKey: K(stringValue: "next")!))
            }
            switch level % 5 {
            case 0: try nested(Wrapped<K>.self)
            case 1: try nested(Wrapped<Wrapped<K>>.self)
            case 2: try nested(Wrapped<Wrapped<Wrapped<K>>>.self)
            case 3: try nested(Wrapped<Wrapped<Wrapped<Wrapped<K>>>>.self)
            default: try nested(Wrapped<Wrapped<Wrapped<Wrapped<Wrapped<K>>>>>.self)
            }
        }
    }

    struct Wrapped<Inner: CodingKey>: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func written<Value: Encodable>(
        _ value: Value, _ encoder: JSONEncoder = JSONEncoder()
    ) throws -> (writer: Data, encoder: Data) {
        (try JSONBodyWriter.encode(value, with: encoder), try encoder.encode(value))
    }

    static let everyASCII = String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) })

    @Test func scalarsAndArraysAreByteForByteJSONEncoders() throws {
        let doubles: [Double] = [1, 0.1, -0.0, 1e20, 1e21, 1.5e300, 123456789.123, .leastNonzeroMagnitude, 1e-7, -2.5]
        let floats: [Float] = [1, 0.1, 3.4e38, 1e-7]
        let cases: [(String, (writer: Data, encoder: Data))] = try [
            ("ints", Self.written([0, 1, -1, Int.max, Int.min])),
            ("sized ints", Self.written([Int8.min, Int8.max])),
            ("unsigned", Self.written([UInt64.max, 0])),
            ("doubles", Self.written(doubles)),
            ("floats", Self.written(floats)),
            ("bools and nil", Self.written([true, false, nil] as [Bool?])),
            ("every ASCII byte", Self.written([Self.everyASCII])),
            ("unicode", Self.written(["é😀 ∑ \u{2028}"])),
            (
                "slashes kept",
                Self.written(
                    ["a/b"],
                    {
                        let e = JSONEncoder()
                        e.outputFormatting = .withoutEscapingSlashes
                        return e
                    }())
            ),
            (
                "data, url, decimal, date",
                Self.written([Item(id: 1, title: "t", done: true, attachment: Data([1, 2, 3]))].map(\.attachment))
            ),
            ("urls", Self.written([URL(string: "https://x.example/a?b=c")!])),
            ("decimals", Self.written([Decimal(string: "12.50")!, Decimal(string: "-0.001")!])),
            ("dates", Self.written([Date(timeIntervalSinceReferenceDate: 12.5)])),
            ("top-level scalar", Self.written(3)),
            ("top-level string", Self.written("s/\"")),
            ("top-level nil", Self.written(Int?.none)),
            ("empty array", Self.written([Int]())),
            ("nested arrays", Self.written([[1], [], [2, 3]])),
            ("a value that writes nothing", Self.written([Nothing()])),
            ("one-key object", Self.written(["key": "value"]))
        ]
        for (name, (writer, encoder)) in cases {
            #expect(
                writer == encoder,
                "\(name): \(String(decoding: writer, as: UTF8.self)) vs \(String(decoding: encoder, as: UTF8.self))")
        }
    }

    @Test func objectsHoldTheSameKeysAndValues() throws {
        let items = [
            Item(
                id: 1, title: "todo \"1\"\n", done: true, tags: ["a", "b/c"], score: 0.25,
                due: Date(timeIntervalSinceReferenceDate: 1000),
                attachment: Data("hi".utf8), link: URL(string: "https://x.example/")!, price: Decimal(string: "9.99")!,
                nested: ["k": [1, 2]]),
            Item(id: -2, title: "", done: false)
        ]
        let (writer, encoder) = try Self.written(items)
        #expect(try canonicalJSON(writer) == canonicalJSON(encoder))
        #expect(try JSONDecoder().decode([Item].self, from: writer) == items)
        // Keys come in the order the value encodes them.
        #expect(
            String(decoding: try Self.written(items[1]).writer, as: UTF8.self)
                == #"{"id":-2,"title":"","done":false,"tags":[]}"#)
    }

    @Test func aSubclassAddsToItsSuperclasssObject() throws {
        let (writer, encoder) = try Self.written(Derived())
        #expect(try canonicalJSON(writer) == canonicalJSON(encoder))
        #expect(String(decoding: writer, as: UTF8.self) == #"{"base":1,"extra":"more"}"#)
    }

    /// What a stream cannot write goes to JSONEncoder, whose bytes (or error) come out.
    @Test func theWriterStepsAsideForWhatAStreamCannotWrite() throws {
        for (writer, encoder) in try [
            Self.written(Interleaved()), Self.written(DuplicateKey()), Self.written(SuperEncoding())
        ] {
            #expect(try canonicalJSON(writer) == canonicalJSON(encoder))
        }
        #expect(try JSONBodyWriter.written(Interleaved(), escapingSlashes: true, userInfo: [:]) == nil)
        #expect(try JSONBodyWriter.written(DuplicateKey(), escapingSlashes: true, userInfo: [:]) == nil)
        #expect(try JSONBodyWriter.written(SuperEncoding(), escapingSlashes: true, userInfo: [:]) == nil)
        #expect(throws: EncodingError.self) { try JSONBodyWriter.encode([Double.nan], with: JSONEncoder()) }
    }

    /// The writer hands a keyed container out again, for the next object of its key type, only
    /// once the value that had it let go of it: a container kept and written to later still
    /// writes to its own object (closed by then, so the writer steps aside), a tree of one type
    /// gets a container per open level, and key types past the ones kept get fresh ones.
    @Test func keyedContainersAreReusedOnlyOnceReleased() throws {
        let stash = Stash()
        let kept = [KeepsItsContainer(stash: stash, isFirst: true), KeepsItsContainer(stash: stash, isFirst: false)]
        #expect(try JSONBodyWriter.written(kept, escapingSlashes: true, userInfo: [:]) == nil)
        let stashAgain = Stash()
        let (writer, encoder) = try Self.written([
            KeepsItsContainer(stash: stashAgain, isFirst: true), KeepsItsContainer(stash: stashAgain, isFirst: false)
        ])
        #expect(writer == encoder)

        let leaf = { (name: String) in Node(name: name, children: []) }
        let tree = Node(
            name: "root",
            children: [
                Node(name: "a", children: [leaf("a1"), Node(name: "a2", children: [leaf("a2x")])]),
                leaf("b"), Node(name: "c", children: [leaf("c1"), leaf("c2")])
            ])
        let written = try #require(try JSONBodyWriter.written([tree, tree], escapingSlashes: true, userInfo: [:]))
        #expect(try canonicalJSON(written) == canonicalJSON(JSONEncoder().encode([tree, tree])))
        #expect(
            String(decoding: written, as: UTF8.self).hasPrefix(
                #"[{"name":"root","children":[{"name":"a","children":[{"name":"a1","children":[]}"#))

        let chains = [Chain(depth: 40), Chain(depth: 3), Chain(depth: 40)]
        let chained = try #require(try JSONBodyWriter.written(chains, escapingSlashes: true, userInfo: [:]))
        #expect(try canonicalJSON(chained) == canonicalJSON(JSONEncoder().encode(chains)))
    }

    /// A closed object's keys are forgotten and its enclosing object's are not: the writer
    /// writes the outer object's new key itself and steps aside for its repeated one.
    @Test func keysAreCheckedPerObjectAcrossNestedOnes() throws {
        let distinct = try #require(
            try JSONBodyWriter.written(
                KeysAroundANestedObject(repeatsBase: false), escapingSlashes: true, userInfo: [:]))
        #expect(
            String(decoding: distinct, as: UTF8.self)
                == #"{"base":1,"inner":{"list":2,"base":3,"inner":{"inner":4}},"list":5}"#)
        #expect(
            try JSONBodyWriter.written(KeysAroundANestedObject(repeatsBase: true), escapingSlashes: true, userInfo: [:])
                == nil)
        for repeatsBase in [false, true] {
            let (writer, encoder) = try Self.written(KeysAroundANestedObject(repeatsBase: repeatsBase))
            #expect(try canonicalJSON(writer) == canonicalJSON(encoder))
        }
    }

    /// JSONEncoder keeps an object's keys in a dictionary, so keys Swift sees as one `String`
    /// are one key, the last value kept: the writer steps aside for them, and only for them,
    /// in small objects and in objects with many keys.
    @Test func keysAreComparedAsStrings() throws {
        let pairs: [(String, String, Bool)] = [
            ("K", "\u{212A}", true),  // KELVIN SIGN is canonically "K"
            ("\u{E9}", "e\u{301}", true),  // é, precomposed and decomposed
            ("é", "é", true),
            ("a\"b", "a\"b", true),
            ("id", "ID", false),
            ("é", "e", false),
            ("ab", "a", false),
            ("日本", "日本語", false)
        ]
        let many = (0..<40).map { "key \($0)" }
        for (first, second, same) in pairs {
            for names in [[first, second], many + [first] + many.map { $0 + "!" } + [second]] {
                let (writer, encoder) = try Self.written(Keys(names: names))
                #expect(try canonicalJSON(writer) == canonicalJSON(encoder), "\(first) and \(second)")
                let steppedAside =
                    try JSONBodyWriter.written(Keys(names: names), escapingSlashes: true, userInfo: [:]) == nil
                #expect(steppedAside == same, "\(first) and \(second) among \(names.count)")
                let object = try JSONSerialization.jsonObject(with: writer) as? [String: Int]
                #expect(object?.count == names.count - (same ? 1 : 0), "\(first) and \(second) among \(names.count)")
            }
        }
        let large = Dictionary(uniqueKeysWithValues: (0..<20_000).map { ("key \($0)", $0) })
        let writer = try #require(try JSONBodyWriter.written(large, escapingSlashes: true, userInfo: [:]))
        #expect(try canonicalJSON(writer) == canonicalJSON(JSONEncoder().encode(large)))
    }

    /// Strings longer than the first block, escapes at its edges, and every length of number.
    @Test func largeDocumentsAreByteForByteJSONEncoders() throws {
        let long = String(repeating: "a\"\\/\u{1}é😀", count: 3000)
        let numbers = (0..<64).map { Int64(bitPattern: 1 << UInt64($0)) } + [Int64.max, Int64.min, -1, 9, 10, 99, 100]
        let items = (0..<500).map {
            Item(id: $0 * 7919, title: "todo \($0) \u{7}\t", done: $0 % 3 == 0, tags: ["x\($0)"])
        }
        let strings = try Self.written([long, long])
        #expect(strings.writer == strings.encoder)
        let integers = try Self.written(numbers)
        #expect(integers.writer == integers.encoder)
        // Objects: the same keys and values (JSONEncoder may order keys differently).
        let (writer, encoder) = try Self.written(items)
        #expect(try canonicalJSON(writer) == canonicalJSON(encoder))
        #expect(try JSONDecoder().decode([Item].self, from: writer) == items)
        for written in try [
            JSONBodyWriter.written(items, escapingSlashes: true, userInfo: [:]),
            JSONBodyWriter.written([long], escapingSlashes: true, userInfo: [:])
        ] {
            #expect(written != nil)
        }
    }

    @Test func anEncoderWithOtherSettingsEncodesItself() throws {
        let sorted = JSONEncoder()
        sorted.outputFormatting = [.sortedKeys, .prettyPrinted]
        let snake = JSONEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        let iso = JSONEncoder()
        iso.dateEncodingStrategy = .iso8601
        #expect(JSONBodyWriter.writesLike(JSONEncoder()) == true)
        for encoder in [sorted, snake, iso] {
            #expect(JSONBodyWriter.writesLike(encoder) == nil)
            let item = Item(id: 1, title: "x", done: true, due: Date(timeIntervalSinceReferenceDate: 0))
            let (writer, expected) = try Self.written(item, encoder)
            let same = try writer == expected || canonicalJSON(writer) == canonicalJSON(expected)
            #expect(same)
        }
        #expect(String(decoding: try Self.written(["k": 1], sorted).writer, as: UTF8.self) == "{\n  \"k\" : 1\n}")
    }

    @Test func theUserInfoAndCodingPathReachTheValue() throws {
        struct Probe: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(
                    "\(encoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] ?? "-") at \(encoder.codingPath.map(\.stringValue))"
                )
            }
        }
        let encoder = JSONEncoder()
        encoder.userInfo[CodingUserInfoKey(rawValue: "tenant")!] = "acme"
        let (writer, expected) = try Self.written(["outer": [Probe()]], encoder)
        #expect(writer == expected)
    }
}
