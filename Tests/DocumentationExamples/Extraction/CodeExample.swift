/// A fenced `swift` code block of a Markdown document: the text a reader copies.
public struct CodeExample: Equatable, Sendable {
    /// Where the block stands among its document's `swift` blocks, from 1.
    public var number: Int
    /// The document's line number of the block's first line of code (the line after its fence).
    public var firstLine: Int
    /// The block's lines, without the indentation its opening fence had.
    public var lines: [String]

    /// Whether a Markdown line opens a `swift` block: its text, after any indentation, begins
    /// with three backticks and `swift`. The plugin counts blocks by the same rule.
    static func opensSwiftBlock(_ line: Substring) -> Bool {
        line.drop(while: { $0 == " " }).hasPrefix("```swift")
    }

    /// Whether a Markdown line closes a code block: three backticks alone, indented or not.
    static func closesBlock(_ line: Substring) -> Bool {
        let text = line.drop(while: { $0 == " " })
        return text.hasPrefix("```") && text.dropFirst(3).allSatisfy { $0 == " " }
    }

    /// Every `swift` block of a Markdown document, in order. A block ends at a line of three
    /// backticks alone (or at the end of the document).
    public static func examples(inMarkdown text: String) -> [CodeExample] {
        var examples: [CodeExample] = []
        var open: CodeExample?
        var fenceIndentation = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if var example = open {
                if closesBlock(line) {
                    examples.append(example)
                    open = nil
                } else {
                    let indentation = min(fenceIndentation, line.prefix(while: { $0 == " " }).count)
                    example.lines.append(String(line.dropFirst(indentation)))
                    open = example
                }
            } else if opensSwiftBlock(line) {
                fenceIndentation = line.prefix(while: { $0 == " " }).count
                open = CodeExample(number: examples.count + 1, firstLine: index + 2, lines: [])
            }
        }
        if let open { examples.append(open) }
        return examples
    }
}
