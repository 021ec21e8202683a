import Foundation

/// Encodes a request body's JSON the way `JSONEncoder` with its default settings does, byte for
/// byte, but straight into a byte buffer: no tree of values, no dictionaries, no boxing.
///
/// `JSONEncoder` builds every object as a dictionary of boxed values before writing it out, which
/// makes encoding a 1 KiB document cost several times what sending it costs. This writer emits
/// each key and value as the `Encodable` hands them over. It is used only when the configured
/// encoder has the default strategies (see ``JSONBodyWriter/encode(_:with:)``), and it steps
/// aside for what a stream cannot do in order: writing to a container after a later one was
/// opened, a key written twice, a super-encoder, a number JSON cannot hold. `JSONEncoder` then
/// encodes the value as usual, so the bytes are always `JSONEncoder`'s. Object keys come in the
/// order the value encodes them.
final class JSONBodyWriter: Encoder {
    /// One open object or array.
    private struct Frame {
        let id: Int
        let isObject: Bool
        var count = 0
        /// Where an object's keys start in `keys`.
        let firstKey: Int
    }

    // `@exclusivity(unchecked)`: one writer encodes one value on one thread, and the runtime's
    // dynamic checks (a thread-local lookup per access) would cost more than the writing.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    @exclusivity(unchecked) var codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any]
    private let escapesSlashes: Bool
    @exclusivity(unchecked) private var frames: [Frame] = []
    /// The keys of the open objects, to see one written twice; each frame's after its `firstKey`.
    @exclusivity(unchecked) private var keys: [String] = []
    @exclusivity(unchecked) private var nextFrameID = 0
    /// Values and containers written, to see a value that wrote nothing.
    @exclusivity(unchecked) fileprivate private(set) var written = 0
    /// How many frames were open when the value being encoded started: a container it opens is
    /// at this depth.
    @exclusivity(unchecked) private var levelDepth = 0
    /// Something a stream cannot write came up: `JSONEncoder` takes over.
    @exclusivity(unchecked) private var failed = false

    private init(userInfo: [CodingUserInfoKey: Any], escapesSlashes: Bool) {
        self.userInfo = userInfo
        self.escapesSlashes = escapesSlashes
        bytes.reserveCapacity(1024)
        keys.reserveCapacity(16)
    }

    /// `value` as JSON: written here when `encoder` has the default strategies, by `encoder`
    /// itself otherwise or when this writer steps aside. Throws what `encoder` throws.
    static func encode<Value: Encodable>(_ value: Value, with encoder: JSONEncoder) throws -> Data {
        guard let escapesSlashes = Self.writesLike(encoder) else { return try encoder.encode(value) }
        let writer = JSONBodyWriter(userInfo: encoder.userInfo, escapesSlashes: escapesSlashes)
        do {
            try writer.writeValue(value)
            writer.closeFrames(downTo: 0)
        } catch {
            writer.failed = true
        }
        guard !writer.failed else { return try encoder.encode(value) }
        return Data(writer.bytes)
    }

    /// Whether `encoder`'s settings are the ones this writer reproduces, and if so whether it
    /// escapes slashes; `nil` when it does not.
    static func writesLike(_ encoder: JSONEncoder) -> Bool? {
        let formatting = encoder.outputFormatting
        guard formatting.isEmpty || formatting == .withoutEscapingSlashes,
            case .useDefaultKeys = encoder.keyEncodingStrategy,
            case .deferredToDate = encoder.dateEncodingStrategy,
            case .base64 = encoder.dataEncodingStrategy,
            case .throw = encoder.nonConformingFloatEncodingStrategy
        else { return nil }
        return formatting.isEmpty
    }

    // MARK: Values

    /// Writes one value: a scalar, or what its `encode(to:)` writes, its containers closed after.
    fileprivate func writeValue<Value: Encodable>(_ value: Value) throws {
        // JSONEncoder's own forms for these three (their Encodable forms differ); compared by
        // type first, as a cast of every value would cost more than the writing.
        let type = ObjectIdentifier(Value.self)
        if type == ObjectIdentifier(Data.self), let data = value as? Data {
            writeString(data.base64EncodedString())
        } else if type == ObjectIdentifier(URL.self), let url = value as? URL {
            writeString(url.absoluteString)
        } else if type == ObjectIdentifier(Decimal.self), let decimal = value as? Decimal {
            guard decimal.isFinite else { throw Unwritable() }
            writeASCII(decimal.description)
        } else {
            let depth = frames.count
            let outerLevel = levelDepth
            let mark = written
            levelDepth = depth
            defer { levelDepth = outerLevel }
            try value.encode(to: self)
            if written == mark {
                // JSONEncoder writes a value that encoded nothing as an empty object.
                bytes.append(UInt8(ascii: "{"))
                bytes.append(UInt8(ascii: "}"))
                written += 1
            }
            closeFrames(downTo: depth)
        }
    }

    /// A value with a key or index on the coding path while it is written.
    fileprivate func writeValue<Value: Encodable>(_ value: Value, at key: any CodingKey) throws {
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try writeValue(value)
    }

    fileprivate func writeString(_ string: String) {
        written += 1
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            // Most strings (every key, most values) need no escape: one copy then.
            guard utf8.contains(where: { escape(for: $0) != nil }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            var start = 0
            for (index, byte) in utf8.enumerated() {
                guard let escape = escape(for: byte) else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                if escape != 0 {
                    bytes.append(escape)
                } else {
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// What follows the backslash that escapes `byte` in a JSON string, as JSONEncoder writes
    /// it: `nil` for a byte written as it is, 0 for a control character written as `\u00XX`.
    private func escape(for byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "\""): return UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): return UInt8(ascii: "\\")
        case UInt8(ascii: "/"): return escapesSlashes ? UInt8(ascii: "/") : nil
        case 0x0A: return UInt8(ascii: "n")
        case 0x0D: return UInt8(ascii: "r")
        case 0x09: return UInt8(ascii: "t")
        case 0x08: return UInt8(ascii: "b")
        case 0x0C: return UInt8(ascii: "f")
        case 0..<0x20: return 0
        default: return nil
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    fileprivate func writeASCII(_ text: String) {
        written += 1
        bytes.append(contentsOf: text.utf8)
    }

    fileprivate func writeInteger<Integer: BinaryInteger>(_ value: Integer) {
        written += 1
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var magnitude = value.magnitude
        withUnsafeMutableBytes(of: &digits) { digits in
            while magnitude > 0 {
                digits[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(digits[index]) }
        }
    }

    /// A finite number as its shortest description, without a trailing `.0`, as JSONEncoder
    /// writes it; a NaN or an infinity is for JSONEncoder to refuse.
    fileprivate func writeFloatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number) throws {
        guard value.isFinite else { throw Unwritable() }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        writeASCII(text)
    }

    fileprivate func writeNull() {
        writeASCII("null")
    }

    fileprivate func writeBool(_ value: Bool) {
        writeASCII(value ? "true" : "false")
    }

    // MARK: Containers

    /// Opens an object or array and returns its frame's ID.
    fileprivate func openFrame(isObject: Bool) -> Int {
        written += 1
        nextFrameID += 1
        bytes.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        frames.append(Frame(id: nextFrameID, isObject: isObject, firstKey: keys.count))
        return nextFrameID
    }

    fileprivate func closeFrames(downTo depth: Int) {
        while frames.count > depth {
            let frame = frames.removeLast()
            if frame.isObject { keys.removeSubrange(frame.firstKey...) }
            bytes.append(frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Makes frame `id` the innermost open one (closing containers opened after it, as a value
    /// moves on from a nested container) and writes the separator before its next element;
    /// `false` when the frame was closed already, which a stream cannot go back to.
    fileprivate func beginElement(in id: Int, key: String?) -> Bool {
        guard !failed else { return false }
        let index: Int
        if let last = frames.indices.last, frames[last].id == id {
            index = last
        } else if let found = frames.lastIndex(where: { $0.id == id }) {
            index = found
            closeFrames(downTo: index + 1)
        } else {
            failed = true
            return false
        }
        if let key {
            if keys[frames[index].firstKey...].contains(key) {
                failed = true  // JSONEncoder keeps the last value of a key written twice
                return false
            }
            keys.append(key)
        }
        if frames[index].count > 0 { bytes.append(UInt8(ascii: ",")) }
        frames[index].count += 1
        if let key {
            writeString(key)
            written -= 1
            bytes.append(UInt8(ascii: ":"))
        }
        return true
    }

    /// The object of the value being encoded: a second `container(keyedBy:)` from the same value
    /// (a subclass after its superclass) adds to the first, as in JSONEncoder.
    private func objectFrame() -> Int {
        if frames.count > levelDepth, frames[levelDepth].isObject {
            closeFrames(downTo: levelDepth + 1)
            return frames[levelDepth].id
        }
        if frames.count > levelDepth { failed = true }
        return openFrame(isObject: true)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(writer: self, frame: objectFrame()))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if frames.count > levelDepth { failed = true }
        return UnkeyedContainer(writer: self, frame: openFrame(isObject: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: self, mark: written)
    }

    fileprivate func fail() {
        failed = true
    }

    /// What the writer leaves to JSONEncoder.
    struct Unwritable: Error {}

    /// An index on the coding path, as JSONEncoder names array elements.
    struct IndexKey: CodingKey {
        let intValue: Int?
        var stringValue: String { "Index \(intValue ?? 0)" }
        init(index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}

// MARK: - The three containers

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONBodyWriter
    let frame: Int
    var codingPath: [any CodingKey] { writer.codingPath }

    private func begin(_ key: Key) throws {
        guard writer.beginElement(in: frame, key: key.stringValue) else { throw JSONBodyWriter.Unwritable() }
    }

    mutating func encodeNil(forKey key: Key) throws { try begin(key); writer.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); writer.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); writer.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try writer.writeValue(value, at: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        guard writer.beginElement(in: frame, key: key.stringValue) else {
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, frame: -1))
        }
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, frame: writer.openFrame(isObject: true)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard writer.beginElement(in: frame, key: key.stringValue) else { return UnkeyedContainer(writer: writer, frame: -1) }
        return UnkeyedContainer(writer: writer, frame: writer.openFrame(isObject: false))
    }

    mutating func superEncoder() -> any Encoder {
        writer.fail()
        return writer
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        writer.fail()
        return writer
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONBodyWriter
    let frame: Int
    private(set) var count = 0
    var codingPath: [any CodingKey] { writer.codingPath }

    init(writer: JSONBodyWriter, frame: Int) {
        self.writer = writer
        self.frame = frame
    }

    private mutating func begin() throws {
        guard writer.beginElement(in: frame, key: nil) else { throw JSONBodyWriter.Unwritable() }
        count += 1
    }

    mutating func encodeNil() throws { try begin(); writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try begin(); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Float) throws { try begin(); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try begin()
        try writer.writeValue(value, at: JSONBodyWriter.IndexKey(index: index))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        guard (try? begin()) != nil else { return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, frame: -1)) }
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, frame: writer.openFrame(isObject: true)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard (try? begin()) != nil else { return UnkeyedContainer(writer: writer, frame: -1) }
        return UnkeyedContainer(writer: writer, frame: writer.openFrame(isObject: false))
    }

    mutating func superEncoder() -> any Encoder {
        writer.fail()
        return writer
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONBodyWriter
    /// What the writer had written when the container was made: it holds one value.
    let mark: Int
    var codingPath: [any CodingKey] { writer.codingPath }

    private func begin() throws {
        guard writer.written == mark else {
            writer.fail()
            throw JSONBodyWriter.Unwritable()
        }
    }

    mutating func encodeNil() throws { try begin(); writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { try begin(); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Float) throws { try begin(); try writer.writeFloatingPoint(value) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try writer.writeValue(value)
    }
}
