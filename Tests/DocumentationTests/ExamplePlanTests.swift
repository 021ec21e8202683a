import Testing

@testable import DocumentationExamples

/// How the plugin's tool turns a document's `swift` blocks into Swift files: the rules that
/// decide what every example of the README and the articles is compiled as.
@Suite("Documentation examples")
struct ExamplePlanTests {
    @Test func blocksAreFoundWithTheirLinesAndWithoutTheirFencesIndentation() {
        let markdown = """
            # Title

            ```swift
            let a = 1
            ```

            ```bash
            make test
            ```

            - A list item:

              ```swift
              struct B {
                  let c: Int
              }
              ```
            """
        #expect(
            CodeExample.examples(inMarkdown: markdown) == [
                CodeExample(number: 1, firstLine: 4, lines: ["let a = 1"]),
                CodeExample(number: 2, firstLine: 14, lines: ["struct B {", "    let c: Int", "}"])
            ])
    }

    @Test func anUnclosedBlockRunsToTheEndOfTheDocument() {
        #expect(
            CodeExample.examples(inMarkdown: "```swift\nlet a = 1\n") == [
                CodeExample(number: 1, firstLine: 2, lines: ["let a = 1", ""])
            ])
    }

    @Test(arguments: [
        // (the block, where it goes, what it imports, the top-level names read after it)
        (["let todo = try await fetch()"], ExamplePlan.Placement.functionBody, [String](), ["todo"]),
        (["var answer = \"\"", "answer += \"a\""], .functionBody, [], ["answer"]),
        (["let (updates, progress) = TransferProgress.stream()"], .functionBody, [], ["updates", "progress"]),
        (["let (_, progress) = pair", "let _ = value"], .functionBody, [], ["progress"]),
        (["struct A: Connector {", "    let b = 1", "}"], .functionBody, [], []),
        (["do {", "    let inner = 1", "}"], .functionBody, [], []),
        (["import Connect", "import Foundation", "", "let c = 1"], .functionBody, ["Connect", "Foundation"], ["c"]),
        (["extension Todo: JSONWritable {", "}"], .fileScope, [], []),
        (["protocol P {}"], .fileScope, [], []),
        (["import ConnectMacros", "@JSONWritable", "struct T: Codable {}"], .fileScope, ["ConnectMacros"], []),
        (["// Package.swift", ".package(url: \"u\", branch: \"main\"),"], .manifest, [], [])
    ])
    func placement(lines: [String], placement: ExamplePlan.Placement, imports: [String], names: [String]) {
        let plan = ExamplePlan(CodeExample(number: 1, firstLine: 1, lines: lines))
        #expect(plan.placement == placement)
        #expect(plan.imports == imports)
        #expect(plan.topLevelNames == names)
        #expect(plan.body.count == lines.count)
    }

    @Test func importLinesAreBlankedSoThatLinesKeepTheirNumbers() {
        let plan = ExamplePlan(CodeExample(number: 1, firstLine: 1, lines: ["import Connect", "let c = 1"]))
        #expect(plan.body == ["", "let c = 1"])
    }

    @Test func aFragmentIsAFunctionWithTheUsualImportsAndItsLinesLocatedInTheDocument() {
        let file = ExampleSourceFile(
            CodeExample(number: 3, firstLine: 40, lines: ["let todo = 1"]),
            documentPath: "/repo/Docs/SendingRequests.md", documentName: "SendingRequests.md")
        #expect(file.name == "SendingRequests-3.swift")
        #expect(file.text.contains("import Foundation\nimport HTTPTypes\n"))
        #expect(
            file.text.hasSuffix(
                """
                private func sendingRequestsExample3() async throws {
                #sourceLocation(file: "/repo/Docs/SendingRequests.md", line: 40)
                let todo = 1
                #sourceLocation()
                    _ = todo
                }

                """))
    }

    @Test func aBlockThatImportsIsCompiledWithItsImportsAloneAndBehindItsProductsTrait() {
        let file = ExampleSourceFile(
            CodeExample(
                number: 1, firstLine: 10,
                lines: ["import Connect", "import ConnectMacros", "@JSONWritable", "struct T {}"]),
            documentPath: "/repo/Endpoints.md", documentName: "Endpoints.md")
        #expect(
            file.text.hasSuffix(
                """
                #if Macros
                import Connect
                import ConnectMacros
                import TodoAPIClient

                #sourceLocation(file: "/repo/Endpoints.md", line: 10)


                @JSONWritable
                struct T {}
                #sourceLocation()
                #endif

                """))
        #expect(!file.text.contains("import Foundation"))
    }

    @Test func aManifestIsNotCompiledHere() {
        let file = ExampleSourceFile(
            CodeExample(number: 3, firstLine: 60, lines: ["// Package.swift", ".package(path: \"..\"),"]),
            documentPath: "/repo/README.md", documentName: "README.md")
        #expect(file.name == "README-3.swift")
        #expect(!file.text.contains("import"))
        #expect(!file.text.contains(".package"))
    }

    @Test(arguments: [
        ("README", "readmeExample1"), ("SwiftHTTPTypes", "swiftHTTPTypesExample1"), ("OpenAPI", "openAPIExample1"),
        ("HTMLParsing", "htmlParsingExample1"), ("Endpoints", "endpointsExample1")
    ])
    func functionNames(base: String, name: String) {
        #expect(ExampleSourceFile.functionName(base: base, number: 1) == name)
    }
}
