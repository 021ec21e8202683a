import Foundation
import Testing
import SharedTestSupport

@testable import ConnectJSON

/// The JSON reader behind ``FailedExchange/json``, without a socket: what it reads, as which
/// Swift types, and every way a text is refused.
@Suite("JSON reader")
struct JSONReaderTests {
    /// The value with its types spelled out, so `1` and `1.0` and `"1"` stay apart.
    static func spelled(_ value: Any?) -> String {
        switch value {
        case nil: return "invalid"
        case let object as [String: Any]:
            return "{"
                + object.keys.sorted().map { "\($0.debugDescription):\(spelled(object[$0]))" }.joined(separator: ",")
                + "}"
        case let array as [Any]: return "[" + array.map(spelled).joined(separator: ",") + "]"
        case let text as String: return "String(\(text.debugDescription))"
        case let flag as Bool: return "Bool(\(flag))"
        case let number as Int: return "Int(\(number))"
        case let number as Double: return "Double(\(number))"
        case is JSONNull: return "null"
        case let other?: return "unexpected \(type(of: other))"
        }
    }

    static func read(_ text: String) -> String {
        spelled(JSONReader.value(from: Data(text.utf8)))
    }

    @Test(arguments: [
        ("{}", "{}"),
        ("[]", "[]"),
        (
            #" { "a" : [ 1 , 2.5 , "x" , null , true , false ] } "#,
            #"{"a":[Int(1),Double(2.5),String("x"),null,Bool(true),Bool(false)]}"#
        ),
        (#"{"a":{"b":{"c":[]}}}"#, #"{"a":{"b":{"c":[]}}}"#),
        ("\t\r\n 42 \n", "Int(42)"),
        ("0", "Int(0)"),
        ("-0", "Int(0)"),
        ("-12", "Int(-12)"),
        ("1.5", "Double(1.5)"),
        ("1e2", "Double(100.0)"),
        ("1E+2", "Double(100.0)"),
        ("-2.5e-1", "Double(-0.25)"),
        ("1.0", "Double(1.0)"),
        ("9223372036854775807", "Int(9223372036854775807)"),
        ("9223372036854775808", "Double(9.223372036854776e+18)"),
        ("-9223372036854775808", "Int(-9223372036854775808)"),
        ("true", "Bool(true)"),
        ("null", "null"),
        (#""plain""#, #"String("plain")"#),
        (#""\"\\\/\b\f\n\r\t""#, #"String("\"\\/\u{08}\u{0C}\n\r\t")"#),
        (#""caf\u00e9 \u00E9""#, #"String("café é")"#),
        (#""\ud83d\ude00""#, #"String("😀")"#),
        (#""\u0000""#, #"String("\0")"#),
        ("\"café 😀\"", #"String("café 😀")"#),
        (#"{"k":1,"k":2}"#, #"{"k":Int(2)}"#),
        (#"{"":""}"#, #"{"":String("")}"#)
    ])
    func readsValidText(text: String, expected: String) {
        #expect(Self.read(text) == expected)
    }

    @Test(arguments: [
        "", " ", "{", "}", "[", "[1,]", "[,1]", "[1 2]", #"{"a":1,}"#, #"{"a" 1}"#, #"{"a":}"#, "{1:2}", "{'a':1}",
        #"{"a":1}}"#,
        "01", "-01", "1.", ".5", "-", "+1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity",
        "tru", "nul", "True", "NULL", "truex",
        #""abc"#, "\"tab\there\"", "\"line\nbreak\"", #""\x""#, #""\u12""#, #""\u12G4""#,
        #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#, #""\ud800x""#,
        "[1] x", "1 2", "{}{}", "// comment\n1",
        // Too large for a Double.
        "1e400", "-1e400", "[1e999]"
    ])
    func refusesInvalidText(text: String) {
        #expect(JSONReader.value(from: Data(text.utf8)) == nil, "\(text.debugDescription) was read")
    }

    @Test func refusesInvalidUTF8() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC0, 0xAF, 0x22]
        ] {
            #expect(JSONReader.value(from: Data(bytes)) == nil, "\(bytes) was read")
        }
    }

    @Test func nestingIsBounded() {
        let deepest = JSONReader.maximumDepth
        let allowed = String(repeating: "[", count: deepest) + String(repeating: "]", count: deepest)
        let tooDeep = "[" + allowed + "]"
        #expect(JSONReader.value(from: Data(allowed.utf8)) != nil)
        #expect(JSONReader.value(from: Data(tooDeep.utf8)) == nil)
        let objects =
            String(repeating: #"{"a":"#, count: deepest + 1) + "1" + String(repeating: "}", count: deepest + 1)
        #expect(JSONReader.value(from: Data(objects.utf8)) == nil)
    }

    /// The deepest document the reader accepts parses on a 512 KiB stack, the size of a
    /// secondary thread's on Darwin, where an error handler may run on a dispatch queue.
    @Test func theDeepestDocumentFitsASmallStack() async {
        let deepest =
            String(repeating: #"{"a":["#, count: JSONReader.maximumDepth / 2)
            + String(repeating: "]}", count: JSONReader.maximumDepth / 2)
        let parsed = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: JSONReader.value(from: Data(deepest.utf8)) != nil) }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(parsed)
    }

    /// On text both accept, the reader and `JSONSerialization` agree on every string, key, and
    /// number's value.
    @Test func agreesWithJSONSerialization() throws {
        let text =
            #"{"a":[1,-2.5,"\u00e9\ud83d\ude00",{"b":null,"c":[true,false]}],"big":123456789012,"e":6.02e23,"s":"x\/y"}"#
        let ours = try #require(JSONReader.value(from: Data(text.utf8)) as? [String: Any])
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let ourArray = try #require(ours["a"] as? [Any])
        let theirArray = try #require(theirs["a"] as? [Any])
        #expect(ourArray[0] as? Int == (theirArray[0] as? NSNumber)?.intValue)
        #expect(ourArray[1] as? Double == (theirArray[1] as? NSNumber)?.doubleValue)
        #expect(ourArray[2] as? String == theirArray[2] as? String)
        #expect(ours["big"] as? Int == (theirs["big"] as? NSNumber)?.intValue)
        #expect(ours["e"] as? Double == (theirs["e"] as? NSNumber)?.doubleValue)
        #expect(ours["s"] as? String == theirs["s"] as? String)
        #expect(Set(ours.keys) == Set(theirs.keys))
    }
}

/// The reader against `JSONSerialization` on generated documents and on every cut of them: both
/// accept the same texts, and read the same strings, keys and numbers.
@Suite("JSON reader against JSONSerialization")
struct JSONReaderDifferentialTests {
    typealias Generator = SeededGenerator

    static let pieces = ["a", "é", "😀", "\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", " ", "\\t", "z9"]
    static let numbers = ["0", "-0", "7", "-42", "3.25", "1e3", "-2.5E-2", "123456789012345", "9007199254740993", "0.1"]

    static func document(depth: Int, using generator: inout Generator) -> String {
        let kind = depth > 3 ? Int.random(in: 2...5, using: &generator) : Int.random(in: 0...5, using: &generator)
        switch kind {
        case 0:
            let members = (0..<Int.random(in: 0...4, using: &generator)).map { index in
                "\"k\(index)\(string(using: &generator))\" : \(document(depth: depth + 1, using: &generator))"
            }
            return "{" + members.joined(separator: ", ") + "}"
        case 1:
            return "["
                + (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    document(depth: depth + 1, using: &generator)
                }.joined(separator: ",") + "]"
        case 2: return "\"" + string(using: &generator) + "\""
        case 3: return numbers.randomElement(using: &generator)!
        case 4: return Bool.random(using: &generator) ? "true" : "false"
        default: return "null"
        }
    }

    static func string(using generator: inout Generator) -> String {
        (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// Whether two parsed values say the same: equal strings and keys, numbers equal as
    /// `Double`s, booleans, and nulls (`NSNull` on Foundation's side).
    static func same(_ ours: Any, _ theirs: Any) -> Bool {
        switch (ours, theirs) {
        case let (object as [String: Any], other as [String: Any]):
            return object.count == other.count
                && object.allSatisfy { key, value in other[key].map { same(value, $0) } ?? false }
        case let (array as [Any], other as [Any]):
            return array.count == other.count && zip(array, other).allSatisfy(same)
        case let (text as String, other as String): return text == other
        case let (flag as Bool, other as NSNumber): return isBoolean(other) && other.boolValue == flag
        case let (number as Int, other as NSNumber): return !isBoolean(other) && Double(number) == other.doubleValue
        case let (number as Double, other as NSNumber): return !isBoolean(other) && number == other.doubleValue
        case (is JSONNull, is NSNull): return true
        default: return false
        }
    }

    /// Whether Foundation's number is a boolean (`true`/`false` in the text).
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    @Test(arguments: [1, 2, 3, 4])
    func generatedDocumentsAndEveryCutOfThem(seed: UInt64) throws {
        var generator = Generator(state: seed)
        for _ in 0..<150 {
            let text = Self.document(depth: 0, using: &generator)
            let data = Data(text.utf8)
            let ours = try #require(JSONReader.value(from: data), "refused \(text)")
            let theirs = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            #expect(Self.same(ours, theirs), "read differently: \(text)")
            // Every cut of the text: the reader never crashes, and it accepts a cut exactly
            // when Foundation does.
            for length in stride(from: 0, to: data.count, by: max(1, data.count / 12)) {
                let cut = data.prefix(length)
                let theirsAccepts = (try? JSONSerialization.jsonObject(with: cut, options: [.fragmentsAllowed])) != nil
                #expect(
                    (JSONReader.value(from: cut) != nil) == theirsAccepts,
                    "disagree on the cut \(String(decoding: cut, as: UTF8.self).debugDescription)")
            }
        }
    }
}
