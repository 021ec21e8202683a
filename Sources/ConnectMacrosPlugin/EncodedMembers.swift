#if Macros
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax

/// What a synthesized `Encodable` conformance of a struct writes, read from its declaration: its
/// members, in order, each a stored property and the key it is written under.
///
/// The rules are the compiler's: every stored instance property, in declaration order, under its
/// own name; or, when the type declares a `CodingKeys` enum, the properties its cases name, in the
/// cases' order, under their string raw values where they have them. Computed, static and class
/// properties are not encoded.
struct EncodedMembers: Equatable {
    /// A stored property, spelled as declared (in backticks if it was), and the key it is
    /// written under.
    struct Member: Equatable {
        var property: String
        var key: String
    }

    var members: [Member]

    /// A case of a `CodingKeys` enum: the property it names, the key it stands for, and where.
    private typealias CodingKeyCase = (name: String, key: String, node: EnumCaseElementSyntax)

    /// Reads the members of a struct's body, or throws the problems found, each at its node.
    init(of members: MemberBlockItemListSyntax) throws(DiagnosticsError) {
        var problems: [Diagnostic] = []
        var stored: [Member] = []
        var codingKeys: [CodingKeyCase]?
        if let ownEncode = Self.ownEncodeMethod(in: members) { problems.append(ownEncode) }
        for item in members {
            if let variable = item.decl.as(VariableDeclSyntax.self) {
                stored += Self.storedProperties(of: variable, problems: &problems)
            } else if let keys = item.decl.as(EnumDeclSyntax.self), keys.name.text == "CodingKeys" {
                codingKeys = Self.cases(of: keys, problems: &problems)
            } else if let conditional = item.decl.as(IfConfigDeclSyntax.self) {
                // Which branch compiles is not known here, and a branch may hold stored properties.
                problems.append(
                    Diagnostic(
                        node: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif,
                        message: JSONWritableProblem.conditionalMembers))
            }
        }
        if let codingKeys {
            var members: [Member] = []
            for codingKey in codingKeys {
                guard let property = stored.first(where: { $0.key == codingKey.name }) else {
                    problems.append(
                        Diagnostic(node: codingKey.node.name, message: JSONWritableProblem.codingKeyWithoutProperty))
                    continue
                }
                members.append(Member(property: property.property, key: codingKey.key))
            }
            self.members = members
        } else {
            self.members = stored
        }
        guard problems.isEmpty else { throw DiagnosticsError(diagnostics: problems) }
    }

    /// The stored instance properties `variable` declares, each under its own name.
    private static func storedProperties(of variable: VariableDeclSyntax, problems: inout [Diagnostic]) -> [Member] {
        let modifiers = variable.modifiers.map(\.name.tokenKind)
        if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class)) { return [] }
        if let wrapper = propertyWrapper(of: variable) {
            problems.append(Diagnostic(node: wrapper, message: JSONWritableProblem.propertyWrapper))
            return []
        }
        var properties: [Member] = []
        for binding in variable.bindings where isStored(binding) {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                problems.append(Diagnostic(node: binding.pattern, message: JSONWritableProblem.patternBinding))
                continue
            }
            if modifiers.contains(.keyword(.lazy)) {
                problems.append(Diagnostic(node: identifier, message: JSONWritableProblem.lazyProperty))
                continue
            }
            properties.append(Member(property: identifier.identifier.text, key: identifier.identifier.unbackticked))
        }
        return properties
    }

    /// Attributes a stored property may carry that do not wrap it.
    private static let attributesThatDoNotWrap: Set<String> = [
        "available", "objc", "nonobjc", "inlinable", "usableFromInline", "preconcurrency", "exclusivity", "MainActor"
    ]

    /// The first attribute of `variable` that may be a property wrapper: a synthesized
    /// conformance encodes the wrapper, not the value it wraps.
    private static func propertyWrapper(of variable: VariableDeclSyntax) -> AttributeSyntax? {
        for case .attribute(let attribute) in variable.attributes
        where !attributesThatDoNotWrap.contains(attribute.attributeName.trimmedDescription) {
            return attribute
        }
        return nil
    }

    /// `false` for a computed property: a getter body, or accessors other than observers.
    private static func isStored(_ binding: PatternBindingSyntax) -> Bool {
        switch binding.accessorBlock?.accessors {
        case nil: true
        case .getter: false
        case .accessors(let accessors):
            accessors.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
        }
    }

    /// The error for a `func encode(to encoder: ...)` among `members`, if there is one: the type
    /// writes its own JSON through `Codable`, which the declaration does not show.
    static func ownEncodeMethod(in members: MemberBlockItemListSyntax) -> Diagnostic? {
        for item in members {
            guard let function = item.decl.as(FunctionDeclSyntax.self) else { continue }
            let parameters = function.signature.parameterClause.parameters
            if function.name.text == "encode" && parameters.count == 1 && parameters.first?.firstName.text == "to" {
                return Diagnostic(node: function.name, message: JSONWritableProblem.ownEncodeMethod)
            }
        }
        return nil
    }

    /// The cases of a `CodingKeys` enum in order, with the key each stands for.
    private static func cases(of keys: EnumDeclSyntax, problems: inout [Diagnostic]) -> [CodingKeyCase] {
        let hasStringRawValues = keys.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription == "String"
        var cases: [CodingKeyCase] = []
        for item in keys.memberBlock.members {
            guard let declaration = item.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in declaration.elements {
                let name = element.name.unbackticked
                var key = name
                if hasStringRawValues, let rawValue = element.rawValue?.value {
                    guard let literal = rawValue.as(StringLiteralExprSyntax.self),
                        let text = literal.representedLiteralValue
                    else {
                        problems.append(
                            Diagnostic(node: rawValue, message: JSONWritableProblem.codingKeyRawValueNotALiteral))
                        continue
                    }
                    key = text
                }
                cases.append((name, key, element))
            }
        }
        return cases
    }
}

extension TokenSyntax {
    /// The identifier without the backticks that let it be a keyword.
    var unbackticked: String {
        identifier?.name ?? text
    }
}
#endif
