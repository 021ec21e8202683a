import DocumentationExamples
import Foundation

/// Writes each `swift` block of a Markdown document as a Swift file of its own:
/// `DocumentationExamplesTool <document.md> <output directory>`. Run by the DocumentationExamples
/// build plugin, which names the same files as the build command's outputs.
@main
struct DocumentationExamplesTool {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(
                Data("usage: DocumentationExamplesTool <document.md> <output directory>\n".utf8))
            exit(2)
        }
        let document = URL(fileURLWithPath: arguments[1])
        let output = URL(fileURLWithPath: arguments[2], isDirectory: true)
        let text = try String(contentsOf: document, encoding: .utf8)
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        for example in CodeExample.examples(inMarkdown: text) {
            let file = ExampleSourceFile(example, documentPath: document.path, documentName: document.lastPathComponent)
            try Data(file.text.utf8).write(to: output.appendingPathComponent(file.name), options: .atomic)
        }
    }
}
