/// The Swift file one example becomes, compiled into the `DocumentationTests` target.
public struct ExampleSourceFile: Equatable, Sendable {
    /// What a block without imports of its own is compiled with: the modules the documents'
    /// fragments take for granted.
    static let fragmentImports = [
        "Connect", "ConnectFutures", "ConnectOpenAPI", "Foundation", "HTTPTypes", "Logging", "OpenAPIRuntime",
        "Testing", "TodoAPIClient", "Tracing"
    ]
    /// Modules that stand for the reader's own code, which every example may use: the client
    /// swift-openapi-generator writes into the reader's target. (The rest of the reader's code,
    /// `Todo` and the like, is `ExampleContext.swift` in the test target.)
    static let readersCode = ["TodoAPIClient"]
    /// The package trait an optional product needs: an example importing it compiles only where
    /// the trait is on.
    static let traits = ["ConnectMacros": "Macros", "ConnectOpenAPI": "OpenAPI"]

    /// The file's name: the document's, without its extension, and the example's number.
    public var name: String
    /// The file's Swift source.
    public var text: String

    /// - Parameters:
    ///   - documentPath: the document's path, which diagnostics name (`#sourceLocation`).
    ///   - documentName: the document's file name, `README.md`.
    public init(_ example: CodeExample, documentPath: String, documentName: String) {
        let plan = ExamplePlan(example)
        let base = String(documentName.prefix(while: { $0 != "." }))
        name = "\(base)-\(example.number).swift"

        var lines = [
            "// Example \(example.number) of \(documentName) (line \(example.firstLine)), made by the"
                + " DocumentationExamples plugin:",
            "// edit the document, not this file."
        ]
        if plan.placement == .manifest {
            lines.append("// It is a package manifest's lines: .ci/consumers builds an app from the README's.")
            text = lines.joined(separator: "\n") + "\n"
            return
        }
        let gates = Set(plan.imports.compactMap { Self.traits[$0] }).sorted()
        if !gates.isEmpty { lines.append("#if " + gates.joined(separator: " && ")) }
        let imports = plan.imports.isEmpty ? Self.fragmentImports : Set(plan.imports + Self.readersCode).sorted()
        lines += imports.map { "import \($0)" }
        lines.append("")
        let located =
            ["#sourceLocation(file: \"\(documentPath)\", line: \(example.firstLine))"] + plan.body + [
                "#sourceLocation()"
            ]
        switch plan.placement {
        case .fileScope:
            lines += located
        case .functionBody:
            lines.append("private func \(Self.functionName(base: base, number: example.number))() async throws {")
            lines += located
            lines += plan.topLevelNames.map { "    _ = \($0)" }
            lines.append("}")
        case .manifest:
            break
        }
        if !gates.isEmpty { lines.append("#endif") }
        text = lines.joined(separator: "\n") + "\n"
    }

    /// `readmeExample2` for the second example of `README.md`, `swiftHTTPTypesExample1` for the
    /// first of `SwiftHTTPTypes.md`.
    static func functionName(base: String, number: Int) -> String {
        let leadingCapitals = base.prefix(while: \.isUppercase).count
        let lowered = leadingCapitals == base.count || leadingCapitals <= 1 ? leadingCapitals : leadingCapitals - 1
        return base.prefix(lowered).lowercased() + base.dropFirst(lowered) + "Example\(number)"
    }
}
