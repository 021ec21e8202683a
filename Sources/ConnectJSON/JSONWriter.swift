internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes the JSON of a ``JSONWritable`` value straight into a request body's bytes.
///
/// A value writes itself in ``JSONWritable/write(to:)`` with three kinds of call: a scalar or
/// another writable value (``write(_:)-(String)``), an object (``writeObject(_:)``, with
/// ``write(_:forKey:)-(JSONWritable,_)`` for each member) and an array (``writeArray(_:)``):
///
/// ```swift
/// extension Todo: JSONWritable {
///     func write(to json: inout JSONWriter) {
///         json.writeObject { json in
///             json.write(id, forKey: "id")
///             json.write(title, forKey: "title")
///             json.write(note, forKey: "note")  // an Optional: left out when nil
///         }
///     }
/// }
/// ```
///
/// The bytes are those `JSONEncoder` writes with its default settings: strings escaped the same
/// way, numbers in the same form. A writer that is used wrongly (a member outside an object, two
/// values where one goes) makes the request fail with ``ConnectError/invalidRequest(_:)`` before
/// anything is sent, naming the mistake; a number JSON cannot hold (a NaN, an infinity) fails it
/// with `JSONEncoder`'s error for it, an `EncodingError.invalidValue`.
public struct JSONWriter: ~Copyable {
    /// What the writer is inside: the document (or a member's value, a document of its own), an
    /// object, or an array.
    private enum Container {
        case document, object, array
    }

    private var output = GrowableBytes()
    private var container = Container.document
    /// Values written so far where the writer is: members of an object, elements of an array,
    /// the document's one value.
    private var count = 0
    private let escapesSlashes: Bool
    /// The first mistake, which fails the request; nothing is written after it.
    private var problem: (any Error)?

    init(escapingSlashes: Bool) {
        escapesSlashes = escapingSlashes
    }

    /// `value` as JSON, or the problem that stopped it: a ``ConnectError/invalidRequest(_:)``, or
    /// an `EncodingError` for a number JSON cannot hold.
    package static func data(of value: some JSONWritable, escapingSlashes: Bool) -> Result<Data, any Error> {
        var writer = JSONWriter(escapingSlashes: escapingSlashes)
        writer.write(value)
        if writer.count == 0 { writer.fail("the value wrote nothing") }
        if let problem = writer.problem { return .failure(problem) }
        return .success(writer.output.takeData())
    }

    // MARK: Values

    /// Writes a string, escaped as JSON needs.
    public mutating func write(_ value: String) {
        guard beginValue() else { return }
        appendString(value)
    }

    /// Writes `true` or `false`.
    public mutating func write(_ value: Bool) {
        guard beginValue() else { return }
        appendBool(value)
    }

    /// Writes an integer.
    public mutating func write(_ value: Int) {
        writeInteger(value)
    }

    /// Writes a number; a NaN or an infinity, which JSON cannot hold, fails the request.
    public mutating func write(_ value: Double) {
        writeFloatingPoint(value)
    }

    /// Writes `null`.
    public mutating func writeNull() {
        guard beginValue() else { return }
        if !JSONText.appendASCII("null", to: &output) { outOfMemory() }
    }

    /// Writes a value that writes itself: one of yours, or an array, an optional or a number of
    /// another size.
    public mutating func write(_ value: some JSONWritable) {
        value.write(to: &self)
    }

    /// Writes an integer of any size.
    public mutating func writeInteger(_ value: some BinaryInteger) {
        guard beginValue() else { return }
        appendInteger(value)
    }

    /// Writes a finite floating-point number; a NaN or an infinity fails the request.
    public mutating func writeFloatingPoint(_ value: some BinaryFloatingPoint & LosslessStringConvertible) {
        guard let text = number(value), beginValue() else { return }
        if !JSONText.appendASCII(text, to: &output) { outOfMemory() }
    }

    /// Writes a decimal number in the form `JSONEncoder` writes it (its `description`); a NaN
    /// fails the request with `JSONEncoder`'s error for it.
    mutating func writeDecimal(_ value: Decimal) {
        guard value.isFinite else { return record(Self.notANumber(value)) }
        guard beginValue() else { return }
        if !JSONText.appendASCII(value.description, to: &output) { outOfMemory() }
    }

    // MARK: Objects and arrays

    /// Writes an object whose members `body` writes with ``write(_:forKey:)-(JSONWritable,_)``.
    public mutating func writeObject(_ body: (inout JSONWriter) -> Void) {
        writeContainer(.object, open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), body)
    }

    /// Writes an array whose elements `body` writes, in order.
    public mutating func writeArray(_ body: (inout JSONWriter) -> Void) {
        writeContainer(.array, open: UInt8(ascii: "["), close: UInt8(ascii: "]"), body)
    }

    /// Writes the member `key` of the object being written. Write each key once: `JSONEncoder`
    /// keeps the last value of a key written twice, where this writes both.
    public mutating func write(_ value: some JSONWritable, forKey key: String) {
        guard beginMember(key) else { return }
        // The value is a document of its own: one value, then back in the object.
        let members = count
        container = .document
        count = 0
        value.write(to: &self)
        guard problem == nil else { return }
        guard count == 1 else { return fail("the member \(key.debugDescription) wrote no value") }
        container = .object
        count = members
    }

    /// Writes the member `key` of the object being written unless `value` is `nil`, as a
    /// synthesized `Encodable` conformance leaves out a `nil` property.
    public mutating func write(_ value: (some JSONWritable)?, forKey key: String) {
        guard let value else { return }
        write(value, forKey: key)
    }

    /// Writes the member `key` of the object being written.
    public mutating func write(_ value: String, forKey key: String) {
        guard beginMember(key) else { return }
        appendString(value)
    }

    /// Writes the member `key` of the object being written.
    public mutating func write(_ value: Int, forKey key: String) {
        guard beginMember(key) else { return }
        appendInteger(value)
    }

    /// Writes the member `key` of the object being written.
    public mutating func write(_ value: Bool, forKey key: String) {
        guard beginMember(key) else { return }
        appendBool(value)
    }

    /// Writes the member `key` of the object being written.
    public mutating func write(_ value: Double, forKey key: String) {
        guard let text = number(value), beginMember(key) else { return }
        if !JSONText.appendASCII(text, to: &output) { outOfMemory() }
    }

    // MARK: Where values go

    private mutating func writeContainer(
        _ inside: Container, open: UInt8, close: UInt8, _ body: (inout JSONWriter) -> Void
    ) {
        guard beginValue() else { return }
        if !output.append(open) { return outOfMemory() }
        let (outside, outsideCount) = (container, count)
        (container, count) = (inside, 0)
        body(&self)
        guard problem == nil else { return }
        (container, count) = (outside, outsideCount)
        if !output.append(close) { outOfMemory() }
    }

    /// Makes room for one value where the writer is: the separator before an element, nothing
    /// before the document's value or a member's; `false` once something went wrong.
    @inline(__always)
    private mutating func beginValue() -> Bool {
        guard problem == nil else { return false }
        switch container {
        case .array:
            if count > 0, !output.append(UInt8(ascii: ",")) {
                outOfMemory()
                return false
            }
        case .document:
            guard count == 0 else {
                fail("a second value where one goes")
                return false
            }
        case .object:
            fail("a value without a key inside an object; write(_:forKey:) writes a member")
            return false
        }
        count += 1
        return true
    }

    /// Writes the separator, `key` and the colon of a member, which must be inside an object;
    /// the value comes next.
    @inline(__always)
    private mutating func beginMember(_ key: String) -> Bool {
        guard container == .object, problem == nil else {
            fail("the member \(key.debugDescription) outside an object; writeObject(_:) opens one")
            return false
        }
        guard JSONText.appendKey(key, afterComma: count > 0, to: &output, escapingSlashes: escapesSlashes) != nil else {
            outOfMemory()
            return false
        }
        count += 1
        return true
    }

    private mutating func appendString(_ value: String) {
        if JSONText.appendQuoted(value, to: &output, escapingSlashes: escapesSlashes) == nil { outOfMemory() }
    }

    private mutating func appendBool(_ value: Bool) {
        let text: StaticString = value ? "true" : "false"  // a static string: no retain and release
        if !JSONText.appendASCII(text, to: &output) { outOfMemory() }
    }

    private mutating func appendInteger(_ value: some BinaryInteger) {
        if !JSONText.appendInteger(value, to: &output) { outOfMemory() }
    }

    /// `value` as JSON writes it; `nil` for a NaN or an infinity, which fails the request with
    /// `JSONEncoder`'s error for it.
    private mutating func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible) -> String? {
        if let text = JSONText.text(of: value) { return text }
        record(
            EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: [], debugDescription: "Unable to encode \(value) directly in JSON.")))
        return nil
    }

    /// The error for a decimal that is not a number: `JSONEncoder` writes `NaN`, which is not
    /// JSON, where a careful client refuses, as `JSONEncoder` refuses a `Double` NaN.
    static func notANumber(_ value: Decimal) -> EncodingError {
        EncodingError.invalidValue(
            value,
            EncodingError.Context(codingPath: [], debugDescription: "Unable to encode Decimal.nan directly in JSON."))
    }

    /// Records the first mistake; a later one follows from it.
    private mutating func fail(_ mistake: String) {
        record(JSONWriterMistake(description: "the JSON body could not be written: \(mistake)"))
    }

    /// Keeps `error` as the problem that fails the request, unless there is one already.
    private mutating func record(_ error: any Error) {
        if problem == nil { problem = error }
    }

    private mutating func outOfMemory() {
        fail("memory ran out")
    }
}
