import Connect

#if Macros
/// Writes a type's ``Connect/JSONWritable`` conformance from its declaration: the JSON its
/// synthesized `Encodable` conformance makes `JSONEncoder` write, written without `Codable` when
/// the value is sent as a request body.
///
/// ```swift
/// import Connect
/// import ConnectMacros
///
/// @JSONWritable
/// struct Todo: Codable {
///     let id: Int
///     var title: String
///     var note: String?   // left out when nil, as JSONEncoder does
/// }
///
/// connect.request(CreateTodo(todo))  // its parameters: .jsonObject(value: todo)
/// ```
///
/// For a struct, the object of its stored properties in declaration order, each under its name;
/// when the struct declares a `CodingKeys` enum, the properties its cases name, in the cases'
/// order, under their string raw values. For an enum with a `String` or number raw value, the raw
/// value. A generic struct is writable where its generic parameters are.
///
/// The macro reports an error, and writes nothing, for a type whose JSON it cannot know from the
/// declaration: one with its own `encode(to:)`, a class, an enum without a raw value, a lazy
/// property, a property wrapper (its storage encodes as the wrapper decides), members under
/// `#if` or a property declared with a tuple pattern. Every stored property's type must be `JSONWritable` itself
/// (`String`, `Bool`, numbers, `URL`, `UUID`, `Date`, `Data`, `Decimal`, and arrays, optionals and
/// `String`-keyed dictionaries of writable values are; mark your own types with this macro);
/// the compiler names any that is not. A request whose encoder has a key, date or data strategy
/// of its own is encoded through `Codable` anyway (see ``Connect/EncodedParameters/jsonEncoder``).
@attached(extension, conformances: JSONWritable, names: named(write(to:)))
public macro JSONWritable() = #externalMacro(module: "ConnectMacrosPlugin", type: "JSONWritableMacro")
#elseif !ConnectBuildsWithoutMacros
// Without the package trait Macros there is no plugin to expand the macro (swift-syntax is not
// resolved), and an app that imports this module means to use it. The package's own builds
// without the trait (the sanitizer passes, which compile every target) set
// ConnectBuildsWithoutMacros, and get an empty module.
#error(
    "ConnectMacros needs Connect's package trait Macros beside the default ones: .package(url: …, traits: [.defaults, \"Macros\"]), or `swift build --traits Client,Macros` in Connect's own folder"
)
#endif
