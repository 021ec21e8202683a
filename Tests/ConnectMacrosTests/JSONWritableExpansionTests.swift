#if Macros
import ConnectMacrosPlugin
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@JSONWritable` writes for each kind of declaration, and the errors it reports instead,
/// compared as source text: no compiler runs the expansions here.
@Suite("@JSONWritable expansion")
struct JSONWritableExpansionTests {
    static let macros = ["JSONWritable": MacroSpec(type: JSONWritableMacro.self, conformances: ["JSONWritable"])]

    /// A declaration marked `@JSONWritable`, the extension the macro adds after it (none when it
    /// reports errors), and the errors, at their places in the marked source (the attribute is
    /// line 1).
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var declaration: String
        var expansion: String?
        var diagnostics: [(message: String, line: Int, column: Int)] = []
        var testDescription: String { name }
        var source: String { "@JSONWritable\n" + declaration }
        var expanded: String { declaration + (expansion.map { "\n\n" + $0 } ?? "") }
    }

    static let cases: [Case] = [
        Case(
            name: "stored properties in order; computed, static and observed ones as synthesis treats them",
            declaration: """
                public struct Todo: Codable {
                    let id: Int
                    var title: String, note: String?
                    var `default` = false
                    var watched = 0 { didSet { } }
                    var computed: Int { id + 1 }
                    var alsoComputed: Int { get { id } set { } }
                    static let shared = 1
                }
                """,
            expansion: """
                extension Todo: JSONWritable {
                    public func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.id, forKey: "id")
                            json.write(self.title, forKey: "title")
                            json.write(self.note, forKey: "note")
                            json.write(self.`default`, forKey: "default")
                            json.write(self.watched, forKey: "watched")
                        }
                    }
                }
                """
        ),
        Case(
            name: "the POST benchmarks' item: the calls its conformance written by hand makes",
            declaration: """
                struct WritableItem: Encodable, Sendable {
                    let id: Int
                    let title: String
                    let done: Bool
                }
                """,
            expansion: """
                extension WritableItem: JSONWritable {
                    func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.id, forKey: "id")
                            json.write(self.title, forKey: "title")
                            json.write(self.done, forKey: "done")
                        }
                    }
                }
                """
        ),
        Case(
            name: "CodingKeys choose the members, their order and their keys",
            declaration: """
                struct Item: Encodable {
                    var name: String
                    var secret = ""
                    var count: Int
                    enum CodingKeys: String, CodingKey {
                        case count = "item_count"
                        case name
                    }
                }
                """,
            expansion: """
                extension Item: JSONWritable {
                    func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.count, forKey: "item_count")
                            json.write(self.name, forKey: "name")
                        }
                    }
                }
                """
        ),
        Case(
            name: "a key that needs escaping in a string literal",
            declaration: """
                struct Quoted: Encodable {
                    var value: Int
                    enum CodingKeys: String, CodingKey {
                        case value = "say \\"hi\\"\\n"
                    }
                }
                """,
            expansion: """
                extension Quoted: JSONWritable {
                    func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.value, forKey: #"say "hi"\\#n"#)
                        }
                    }
                }
                """
        ),
        Case(
            name: "no stored properties: an empty object",
            declaration: """
                package struct Empty: Encodable {}
                """,
            expansion: """
                extension Empty: JSONWritable {
                    package func write(to json: inout JSONWriter) {
                        json.writeObject { _ in
                        }
                    }
                }
                """
        ),
        Case(
            name: "a generic struct is writable where its parameters are",
            declaration: """
                struct Page<Item: Encodable, Cursor: Encodable>: Encodable {
                    var items: [Item]
                    var next: Cursor?
                }
                """,
            expansion: """
                extension Page: JSONWritable where Item: JSONWritable, Cursor: JSONWritable {
                    func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.items, forKey: "items")
                            json.write(self.next, forKey: "next")
                        }
                    }
                }
                """
        ),
        Case(
            name: "an enum with a raw value writes the raw value",
            declaration: """
                enum Status: String, Codable {
                    case open, done
                }
                """,
            expansion: """
                extension Status: JSONWritable {
                    func write(to json: inout JSONWriter) {
                        json.write(rawValue)
                    }
                }
                """
        ),
        Case(
            name: "a type with its own encode(to:)",
            declaration: """
                struct Custom: Encodable {
                    var id: Int
                    func encode(to encoder: any Encoder) throws {}
                }
                """,
            diagnostics: [
                (
                    "this type encodes itself ('encode(to:)'), so what it writes is not known here; write 'write(to:)' by hand, to match it",
                    4, 10
                )
            ]
        ),
        Case(
            name: "an enum with a raw value and its own encode(to:)",
            declaration: """
                enum Coded: String, Encodable {
                    case a
                    func encode(to encoder: any Encoder) throws {}
                }
                """,
            diagnostics: [
                (
                    "this type encodes itself ('encode(to:)'), so what it writes is not known here; write 'write(to:)' by hand, to match it",
                    4, 10
                )
            ]
        ),
        Case(
            name: "members under #if",
            declaration: """
                struct Platformed: Encodable {
                    var id: Int
                    #if os(Linux)
                    var linuxOnly = true
                    #endif
                }
                """,
            diagnostics: [
                (
                    "@JSONWritable cannot know which branch of an '#if' compiles; move stored properties out of it, or write 'write(to:)' by hand",
                    4, 5
                )
            ]
        ),
        Case(
            name: "a class",
            declaration: """
                final class Box: Encodable {
                    var id = 0
                }
                """,
            diagnostics: [("@JSONWritable applies to structs, and to enums with a String or number raw value", 1, 1)]
        ),
        Case(
            name: "an enum without a writable raw value",
            declaration: """
                enum Shape: Encodable {
                    case circle(radius: Double)
                }
                """,
            diagnostics: [
                (
                    "@JSONWritable applies to enums whose raw value is a String, an integer, a Double or a Float; write this enum's 'write(to:)' by hand",
                    2, 6
                )
            ]
        ),
        Case(
            name:
                "tuple patterns, lazy properties, property wrappers and a coding key without a property, all reported",
            declaration: """
                struct Odd: Encodable {
                    var (x, y) = (1, 2)
                    lazy var cached = 3
                    @Clamped var wrapped = 5
                    @available(*, deprecated) var kept = 4
                    enum CodingKeys: String, CodingKey {
                        case kept, missing
                    }
                }
                """,
            diagnostics: [
                (
                    "@JSONWritable cannot read a property declared with a tuple pattern; declare each property on its own",
                    3, 9
                ),
                (
                    "@JSONWritable cannot write a lazy property without a mutating call; write 'write(to:)' by hand", 4,
                    14
                ),
                (
                    "a property wrapper's storage is encoded as the wrapper's own Encodable conformance decides; write 'write(to:)' by hand",
                    5, 5
                ),
                ("this coding key names no stored property of the type", 8, 20)
            ]
        )
    ]

    /// The compiler asks for no conformance when the type declares `JSONWritable` itself: the
    /// extension then only adds the method.
    @Test func aTypeThatDeclaresTheConformanceGetsOnlyTheMethod() {
        assertMacroExpansion(
            "@JSONWritable\nstruct Declared: Encodable, JSONWritable {\n    var id: Int\n}",
            expandedSource: """
                struct Declared: Encodable, JSONWritable {
                    var id: Int
                }

                extension Declared {
                    func write(to json: inout JSONWriter) {
                        json.writeObject { json in
                            json.write(self.id, forKey: "id")
                        }
                    }
                }
                """,
            macroSpecs: ["JSONWritable": MacroSpec(type: JSONWritableMacro.self, conformances: [])],
            indentationWidth: .spaces(4),
            failureHandler: { failure in Issue.record(Comment(rawValue: failure.message)) }
        )
    }

    @Test(arguments: cases)
    func expands(_ example: Case) {
        assertMacroExpansion(
            example.source,
            expandedSource: example.expanded,
            diagnostics: example.diagnostics.map {
                DiagnosticSpec(message: $0.message, line: $0.line, column: $0.column)
            },
            macroSpecs: Self.macros,
            indentationWidth: .spaces(4),
            failureHandler: { failure in
                Issue.record(Comment(rawValue: failure.message))
            }
        )
    }
}
#endif
