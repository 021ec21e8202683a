import Foundation
import PackagePlugin

/// Compiles the README's and the DocC articles' examples into the target it is applied to: one
/// build command per document, whose outputs are one Swift file per `swift` block, written by
/// `DocumentationExamplesTool`. A document that changes is extracted again at the next build.
@main
struct DocumentationExamplesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let catalog = root.appending(path: "Sources/Connect/Connect.docc")
        let articles = try FileManager.default.contentsOfDirectory(at: catalog, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let tool = try context.tool(named: "DocumentationExamplesTool").url
        let output = context.pluginWorkDirectoryURL.appending(path: "Examples")
        return try ([root.appending(path: "README.md")] + articles).compactMap { document in
            // The tool writes a file per block that opens as CodeExample.opensSwiftBlock says.
            let text = try String(contentsOf: document, encoding: .utf8)
            let blocks = text.split(separator: "\n", omittingEmptySubsequences: false).filter {
                $0.drop(while: { $0 == " " }).hasPrefix("```swift")
            }.count
            guard blocks > 0 else { return nil }
            let base = document.deletingPathExtension().lastPathComponent
            return .buildCommand(
                displayName: "Extracting the examples of \(document.lastPathComponent)",
                executable: tool,
                arguments: [document.path, output.path],
                inputFiles: [document],
                outputFiles: (1...blocks).map { output.appending(path: "\(base)-\($0).swift") }
            )
        }
    }
}
