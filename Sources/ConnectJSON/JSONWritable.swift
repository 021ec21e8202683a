/// A value that writes its own JSON, so that sending it as a request body skips `Codable`.
///
/// ``Parameter/jsonObject(value:)`` and ``RequestBody/json(_:encoder:)`` encode a value through
/// its `Encodable` conformance, whose containers and generic calls cost most of what sending a
/// small JSON body costs the client. A type that also adopts `JSONWritable` is written through
/// ``write(to:)`` instead, member by member into the body's bytes, several times faster. Nothing
/// changes where it is sent: the same parameters, the same bytes.
///
/// ```swift
/// struct Todo: Encodable, JSONWritable {
///     let id: Int
///     let title: String
///     let tags: [String]
///
///     func write(to json: inout JSONWriter) {
///         json.writeObject { json in
///             json.write(id, forKey: "id")
///             json.write(title, forKey: "title")
///             json.write(tags, forKey: "tags")
///         }
///     }
/// }
///
/// connect.request(CreateTodo(todo))  // its parameters: .jsonObject(value: todo)
/// ```
///
/// The `@JSONWritable` macro of the `ConnectMacros` product writes this conformance from a
/// struct's or a raw-value enum's declaration, as the compiler synthesizes `Encodable`.
///
/// `write(to:)` must write what `encode(to:)` makes `JSONEncoder` write: the same members in the
/// same order, each key once, `nil` properties left out. The `Encodable` conformance stays in
/// use where an encoder with other settings (a key or date strategy, pretty printing) is
/// configured: ``EncodedParameters/jsonEncoder``.
///
/// `String`, `Bool`, the integer and floating-point types, `URL`, `UUID`, `Date`, `Data` and `Decimal` (as
/// `JSONEncoder`'s default strategies write them), and arrays, optionals and `String`-keyed
/// dictionaries of writable values are writable already.
public protocol JSONWritable: Encodable {
    /// Writes this value's JSON: one value (an object, an array or a scalar).
    func write(to json: inout JSONWriter)
}

extension String: JSONWritable {
    /// Writes the string, escaped as JSON needs.
    public func write(to json: inout JSONWriter) { json.write(self) }
}

extension Bool: JSONWritable {
    /// Writes `true` or `false`.
    public func write(to json: inout JSONWriter) { json.write(self) }
}

extension Int: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension Int8: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension Int16: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension Int32: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension Int64: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension UInt: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension UInt8: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension UInt16: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension UInt32: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension UInt64: JSONWritable {
    /// Writes the number.
    public func write(to json: inout JSONWriter) { json.writeInteger(self) }
}

extension Double: JSONWritable {
    /// Writes the number; a NaN or an infinity fails the request, as with `JSONEncoder`.
    public func write(to json: inout JSONWriter) { json.writeFloatingPoint(self) }
}

extension Float: JSONWritable {
    /// Writes the number; a NaN or an infinity fails the request, as with `JSONEncoder`.
    public func write(to json: inout JSONWriter) { json.writeFloatingPoint(self) }
}

extension Array: JSONWritable where Element: JSONWritable {
    /// Writes the elements as a JSON array, in order.
    public func write(to json: inout JSONWriter) {
        withUnsafeBufferPointer { elements in
            json.writeArray { json in
                // Each element is written where it is, without a copy.
                for index in elements.indices { elements[index].write(to: &json) }
            }
        }
    }
}

extension Dictionary: JSONWritable where Key == String, Value: JSONWritable {
    /// Writes the dictionary as a JSON object, in the dictionary's own order: `JSONEncoder` keeps
    /// no order of its own for a dictionary's keys either, so only the order can differ.
    public func write(to json: inout JSONWriter) {
        json.writeObject { json in
            for (key, value) in self { json.write(value, forKey: key) }
        }
    }
}

extension Optional: JSONWritable where Wrapped: JSONWritable {
    /// Writes the value, or `null`.
    public func write(to json: inout JSONWriter) {
        if let self { self.write(to: &json) } else { json.writeNull() }
    }
}
