#if Macros
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@JSONWritable`: adds the `JSONWritable` conformance that a type's synthesized `Encodable` one
/// implies, so that sending it as a JSON body skips `Codable` and writes the same bytes.
///
/// For a struct, `write(to:)` writes an object of the members `EncodedMembers` reads from the
/// declaration, `nil` optionals left out (the writer's overload for optionals does that, as
/// `encodeIfPresent` does). For an enum with a `String` or number raw value, it writes the raw
/// value, as `RawRepresentable`'s `Encodable` conformance does. A generic struct's conformance
/// requires each generic parameter to be writable too.
public struct JSONWritableMacro: ExtensionMacro {
    /// The raw value types whose values write themselves.
    static let writableRawValueTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double",
        "Float"
    ]

    /// The extension that makes the type `declaration` declares `JSONWritable`, or the problems
    /// that keep it from being written, as errors at their places.
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        let body: [String]
        let genericParameters: [String]
        if let structure = declaration.as(StructDeclSyntax.self) {
            body = objectBody(try EncodedMembers(of: structure.memberBlock.members))
            genericParameters = structure.genericParameterClause?.parameters.map(\.name.text) ?? []
        } else if let enumeration = declaration.as(EnumDeclSyntax.self) {
            guard let rawType = enumeration.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription,
                writableRawValueTypes.contains(rawType)
            else {
                throw DiagnosticsError(diagnostics: [
                    Diagnostic(node: enumeration.name, message: JSONWritableProblem.enumWithoutWritableRawValue)
                ])
            }
            if let ownEncode = EncodedMembers.ownEncodeMethod(in: enumeration.memberBlock.members) {
                throw DiagnosticsError(diagnostics: [ownEncode])
            }
            body = ["json.write(rawValue)"]
            genericParameters = []
        } else {
            throw DiagnosticsError(diagnostics: [
                Diagnostic(node: node, message: JSONWritableProblem.notAStructOrRawValueEnum)
            ])
        }
        // `protocols` is empty when the type declares the conformance itself: then only the method.
        let conformance = protocols.isEmpty ? "" : ": JSONWritable"
        let requirements =
            genericParameters.isEmpty
            ? "" : " where " + genericParameters.map { "\($0): JSONWritable" }.joined(separator: ", ")
        let access = accessModifier(of: declaration)
        let extensionDecl: DeclSyntax = """
            extension \(type.trimmed)\(raw: conformance)\(raw: requirements) {
                \(raw: access)func write(to json: inout JSONWriter) {
                    \(raw: body.joined(separator: "\n        "))
                }
            }
            """
        return [extensionDecl.cast(ExtensionDeclSyntax.self)]
    }

    /// The lines that write an object of `members`, one `write(_:forKey:)` each; `{}` when there
    /// are none, as `JSONEncoder` writes for a struct without stored properties.
    static func objectBody(_ members: EncodedMembers) -> [String] {
        guard !members.members.isEmpty else { return ["json.writeObject { _ in }"] }
        let writes = members.members.map { member in
            "    json.write(self.\(member.property), forKey: \(StringLiteralExprSyntax(content: member.key).description))"
        }
        return ["json.writeObject { json in"] + writes + ["}"]
    }

    /// `public ` or `package ` when the type is, so that the method satisfies the conformance
    /// wherever the type is seen; nothing otherwise (the extension's own level then applies).
    static func accessModifier(of declaration: some DeclGroupSyntax) -> String {
        for modifier in declaration.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}
#endif
