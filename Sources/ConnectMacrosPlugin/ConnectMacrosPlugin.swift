import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind the `ConnectMacros` library: the macros it declares, by type.
@main
struct ConnectMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [JSONWritableMacro.self]
}
