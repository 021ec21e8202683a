#if Macros
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind the `ConnectMacros` library: the macros it declares, by type.
@main
struct ConnectMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [JSONWritableMacro.self]
}
#else
// Without the trait there are no macros to provide; a macro target is still an executable and
// needs an entry point.
@main
enum ConnectMacrosPlugin {
    static func main() {}
}
#endif
