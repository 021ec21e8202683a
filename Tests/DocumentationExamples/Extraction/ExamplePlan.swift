/// What one example becomes in Swift: the decisions the extractor makes, as a value its tests compare.
struct ExamplePlan: Equatable {
    /// Where the example's code goes.
    enum Placement: Equatable {
        /// A package manifest's lines (the block's first line is `// Package.swift`): not Swift a
        /// module can compile; `.ci/consumers` builds an app from the README's.
        case manifest
        /// Declarations Swift allows only at file scope (an extension, a protocol, a declaration
        /// with an attached macro): the block is the file.
        case fileScope
        /// Statements and local declarations: the body of an `async throws` function, so that the
        /// names one example declares never meet another's.
        case functionBody
    }

    var placement: Placement
    /// The modules the block imports. A block that imports is a whole file as a reader would
    /// write it, so it is compiled with those imports alone.
    var imports: [String]
    /// The constants and variables the block declares at its top level. The function reads each
    /// once after the block: an example that only shows how a value is made compiles without an
    /// unused-value warning, while every other warning still shows.
    var topLevelNames: [String]
    /// The lines to compile: the block with its import lines left blank, so that each line keeps
    /// its number in the document.
    var body: [String]

    init(_ example: CodeExample) {
        let lines = example.lines
        imports = lines.compactMap(Self.importedModule)
        body = lines.map { Self.importedModule($0) == nil ? $0 : "" }
        if lines.first(where: { !$0.isEmpty }) == "// Package.swift" {
            placement = .manifest
            topLevelNames = []
        } else if lines.contains(where: Self.needsFileScope) {
            placement = .fileScope
            topLevelNames = []
        } else {
            placement = .functionBody
            topLevelNames = lines.flatMap(Self.declaredNames)
        }
    }

    /// The module an `import` line names, or nil for any other line.
    static func importedModule(_ line: String) -> String? {
        guard line.hasPrefix("import ") else { return nil }
        return line.dropFirst("import ".count).split(separator: " ").first.map(String.init)
    }

    /// Whether a line begins, at the block's top level, a declaration a function body cannot hold.
    static func needsFileScope(_ line: String) -> Bool {
        line.hasPrefix("extension ") || line.hasPrefix("protocol ") || line.hasPrefix("@")
    }

    /// The names a top-level `let` or `var` line declares: one, or each of a tuple pattern's.
    static func declaredNames(_ line: String) -> [String] {
        guard line.hasPrefix("let ") || line.hasPrefix("var ") else { return [] }
        let pattern = line.dropFirst(4)
        let names: [Substring]
        if pattern.hasPrefix("(") {
            names = pattern.dropFirst().prefix(while: { $0 != ")" }).split(separator: ",")
        } else {
            names = [pattern]
        }
        return names.compactMap { name in
            let identifier = name.drop(while: { $0 == " " }).prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
            return identifier.isEmpty || identifier == "_" ? nil : String(identifier)
        }
    }
}
