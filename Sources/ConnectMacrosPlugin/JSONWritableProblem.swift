#if Macros
import SwiftDiagnostics

/// Why `@JSONWritable` cannot write a type's conformance: each case is an error at the
/// declaration it names, and no extension is written.
enum JSONWritableProblem: String, DiagnosticMessage, Error {
    case notAStructOrRawValueEnum
    case enumWithoutWritableRawValue
    case ownEncodeMethod
    case patternBinding
    case lazyProperty
    case propertyWrapper
    case conditionalMembers
    case codingKeyWithoutProperty
    case codingKeyRawValueNotALiteral

    var message: String {
        switch self {
        case .notAStructOrRawValueEnum:
            "@JSONWritable applies to structs, and to enums with a String or number raw value"
        case .enumWithoutWritableRawValue:
            "@JSONWritable applies to enums whose raw value is a String, an integer, a Double or a Float; write this enum's 'write(to:)' by hand"
        case .ownEncodeMethod:
            "this type encodes itself ('encode(to:)'), so what it writes is not known here; write 'write(to:)' by hand, to match it"
        case .patternBinding:
            "@JSONWritable cannot read a property declared with a tuple pattern; declare each property on its own"
        case .lazyProperty:
            "@JSONWritable cannot write a lazy property without a mutating call; write 'write(to:)' by hand"
        case .propertyWrapper:
            "a property wrapper's storage is encoded as the wrapper's own Encodable conformance decides; write 'write(to:)' by hand"
        case .conditionalMembers:
            "@JSONWritable cannot know which branch of an '#if' compiles; move stored properties out of it, or write 'write(to:)' by hand"
        case .codingKeyWithoutProperty:
            "this coding key names no stored property of the type"
        case .codingKeyRawValueNotALiteral:
            "@JSONWritable reads a coding key's raw value only when it is a plain string literal"
        }
    }

    var diagnosticID: MessageID {
        MessageID(domain: "ConnectMacros", id: rawValue)
    }

    var severity: DiagnosticSeverity { .error }
}
#endif
