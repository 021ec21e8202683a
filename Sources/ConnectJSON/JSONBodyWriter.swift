internal import ConnectWire
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
package final class JSONBodyWriter: Encoder {
    /// One open object or array.
    private struct Frame {
        let id: Int
        let isObject: Bool
        var count = 0
        /// Where an object's keys start in `keys`.
        let firstKey: Int
    }

    /// A key of an open object, as written: where its escaped bytes sit in the output.
    private struct WrittenKey {
        let start: Int
        let length: Int
        let isASCII: Bool
    }

    // `@exclusivity(unchecked)`: one writer encodes one value on one thread, and the runtime's
    // dynamic checks (a thread-local lookup per access) would cost more than the writing.
    @exclusivity(unchecked) private var output = GrowableBytes()
    @exclusivity(unchecked) package var codingPath: [any CodingKey] = []
    package let userInfo: [CodingUserInfoKey: Any]
    private let escapesSlashes: Bool
    /// The innermost open frame, where most writing goes, held apart from `enclosing` so that
    /// writing to it touches no array; meaningful when `openFrames` > 0.
    @exclusivity(unchecked) private var innermost = Frame(id: 0, isObject: false, firstKey: 0)
    /// The open frames around the innermost, outermost first.
    @exclusivity(unchecked) private var enclosing: [Frame] = []
    @exclusivity(unchecked) private var openFrames = 0
    /// The keys of the open objects, to see one written twice; each frame's after its `firstKey`.
    /// Only the first `keyCount` are current: closing an object lowers the count and leaves the
    /// entries to be overwritten, since shrinking the array costs more than writing them.
    @exclusivity(unchecked) private var keys: [WrittenKey] = []
    @exclusivity(unchecked) private var keyCount = 0
    /// The keys of open objects with many keys, by frame ID, so that checking a new key does not
    /// take a pass over all the others.
    @exclusivity(unchecked) private var keySets: [Int: Set<String>] = [:]
    @exclusivity(unchecked) private var nextFrameID = 0
    /// Values and containers written, to see a value that wrote nothing.
    @exclusivity(unchecked) private(set) var written = 0
    /// How many frames were open when the value being encoded started: a container it opens is
    /// at this depth.
    @exclusivity(unchecked) private var levelDepth = 0
    /// Something a stream cannot write came up, or memory ran out: `JSONEncoder` takes over.
    @exclusivity(unchecked) private var failed = false
    /// The object each keyed container writes to, by the container's slot: a container kept for
    /// reuse writes to the object it was last handed out for.
    @exclusivity(unchecked) private var slotFrames: [Int] = []
    /// Keyed containers kept for the next object of their key type (see ``keyedContainer(for:)``).
    @exclusivity(unchecked) private var reusableContainers: [ReusableKeyedContainer] = []

    private init(userInfo: [CodingUserInfoKey: Any], escapesSlashes: Bool) {
        self.userInfo = userInfo
        self.escapesSlashes = escapesSlashes
        enclosing.reserveCapacity(8)
        keys.reserveCapacity(16)
    }

    /// `value` as JSON: when `encoder` has the default strategies, written by the value itself if
    /// it is ``JSONWritable`` (see ``JSONWriter``) or else here; by `encoder` itself otherwise or
    /// when this writer steps aside. Throws what `encoder` throws.
    package static func encode<Value: Encodable>(_ value: Value, with encoder: JSONEncoder) throws -> Data {
        guard let escapesSlashes = Self.writesLike(encoder) else { return try encoder.encode(value) }
        if let writable = value as? any JSONWritable {
            return try JSONWriter.data(of: writable, escapingSlashes: escapesSlashes).get()
        }
        guard let data = try written(value, escapingSlashes: escapesSlashes, userInfo: encoder.userInfo) else {
            return try encoder.encode(value)
        }
        return data
    }

    /// `value` as this writer writes it, or `nil` where it steps aside. Throws the
    /// `EncodingError`s the value's encoding throws, and one for a decimal that is not a number,
    /// which `JSONEncoder` writes as `NaN`, a document no JSON parser accepts.
    static func written<Value: Encodable>(
        _ value: Value, escapingSlashes: Bool, userInfo: [CodingUserInfoKey: Any]
    ) throws(EncodingError) -> Data? {
        let writer = JSONBodyWriter(userInfo: userInfo, escapesSlashes: escapingSlashes)
        // The kept containers hold the writer: let go of them when it is done.
        defer { writer.reusableContainers.removeAll() }
        do {
            try writer.writeValue(value)
            writer.closeFrames(downTo: 0)
        } catch let error as EncodingError {
            throw error
        } catch {
            return nil
        }
        return writer.failed ? nil : writer.output.takeData()
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
    func writeValue<Value: Encodable>(_ value: Value) throws {
        // JSONEncoder's own forms for these three (their Encodable forms differ); compared by
        // type first, as a cast of every value would cost more than the writing.
        let type = ObjectIdentifier(Value.self)
        if type == ObjectIdentifier(Data.self), let data = value as? Data {
            writeString(data.base64EncodedString())
        } else if type == ObjectIdentifier(URL.self), let url = value as? URL {
            writeString(url.absoluteString)
        } else if type == ObjectIdentifier(Decimal.self), let decimal = value as? Decimal {
            guard decimal.isFinite else { throw JSONWriter.notANumber(decimal) }
            writeASCII(decimal.description)
        } else {
            let depth = openFrames
            let outerLevel = levelDepth
            let mark = written
            levelDepth = depth
            defer { levelDepth = outerLevel }
            try value.encode(to: self)
            if written == mark {
                // JSONEncoder writes a value that encoded nothing as an empty object.
                appendByte(UInt8(ascii: "{"))
                appendByte(UInt8(ascii: "}"))
                written += 1
            }
            closeFrames(downTo: depth)
        }
    }

    /// A value with a key or index on the coding path while it is written.
    func writeValue<Value: Encodable>(_ value: Value, at key: any CodingKey) throws {
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try writeValue(value)
    }

    func writeString(_ string: String) {
        written += 1
        _ = appendQuoted(string)
    }

    /// Appends `string` quoted and escaped as JSONEncoder writes it; whether it is all ASCII.
    private func appendQuoted(_ string: String) -> Bool {
        guard let isASCII = JSONText.appendQuoted(string, to: &output, escapingSlashes: escapesSlashes) else {
            failed = true
            return true
        }
        return isASCII
    }

    func writeASCII(_ text: StaticString) {
        written += 1
        if !JSONText.appendASCII(text, to: &output) { failed = true }
    }

    func writeASCII(_ text: String) {
        written += 1
        if !JSONText.appendASCII(text, to: &output) { failed = true }
    }

    func writeInteger<Integer: BinaryInteger>(_ value: Integer) {
        written += 1
        if !JSONText.appendInteger(value, to: &output) { failed = true }
    }

    /// A finite number as JSONEncoder writes it; a NaN or an infinity is for JSONEncoder to refuse.
    func writeFloatingPoint<Number: BinaryFloatingPoint & LosslessStringConvertible>(_ value: Number) throws {
        guard let text = JSONText.text(of: value) else { throw Unwritable() }
        writeASCII(text)
    }

    func writeNull() {
        writeASCII("null" as StaticString)
    }

    func writeBool(_ value: Bool) {
        writeASCII(value ? "true" as StaticString : "false")
    }

    @inline(__always)
    private func appendByte(_ byte: UInt8) {
        if !output.append(byte) { failed = true }
    }

    // MARK: Containers

    /// Opens an object or array and returns its frame's ID.
    func openFrame(isObject: Bool) -> Int {
        written += 1
        nextFrameID += 1
        appendByte(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
        if openFrames > 0 { enclosing.append(innermost) }
        innermost = Frame(id: nextFrameID, isObject: isObject, firstKey: keyCount)
        openFrames += 1
        return nextFrameID
    }

    /// The open frame at `depth`, 0 the outermost.
    private func frame(at depth: Int) -> Frame {
        depth == openFrames - 1 ? innermost : enclosing[depth]
    }

    func closeFrames(downTo depth: Int) {
        while openFrames > depth {
            if innermost.isObject {
                keyCount = innermost.firstKey
                if !keySets.isEmpty { keySets[innermost.id] = nil }
            }
            appendByte(innermost.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            openFrames -= 1
            if openFrames > 0 { innermost = enclosing.removeLast() }
        }
    }

    /// Makes frame `id` the innermost open one (closing containers opened after it, as a value
    /// moves on from a nested container) and writes the separator before its next element;
    /// `false` when the frame was closed already, which a stream cannot go back to.
    @inline(__always)
    func beginElement(in id: Int) -> Bool {
        guard enter(id) else { return false }
        if innermost.count > 0 { appendByte(UInt8(ascii: ",")) }
        innermost.count += 1
        return true
    }

    /// Makes frame `id` the innermost open one, closing containers opened after it; `false` when
    /// the writer failed or the frame was closed already.
    @inline(__always)
    private func enter(_ id: Int) -> Bool {
        guard !failed else { return false }
        if _slowPath(openFrames == 0 || innermost.id != id) {
            guard let index = enclosing.lastIndex(where: { $0.id == id }) else {
                failed = true
                return false
            }
            closeFrames(downTo: index + 1)
        }
        return true
    }

    /// Starts the member `key` of object `id`: the comma before it where it is not the first,
    /// the key and the colon, in one write where the key needs no escape. `false` where the
    /// writer steps aside (the object was closed already, or has the key).
    func beginMember(in id: Int, key: String) -> Bool {
        guard enter(id) else { return false }
        let afterComma = innermost.count > 0
        innermost.count += 1
        let before = output.count
        guard
            let isASCII = JSONText.appendKey(
                key, afterComma: afterComma, to: &output, escapingSlashes: escapesSlashes)
        else {
            failed = true
            return false
        }
        // The key as written and quoted, between the comma and the colon.
        let start = afterComma ? before + 1 : before
        let newKey = WrittenKey(start: start, length: output.count - 1 - start, isASCII: isASCII)
        if keyCount > innermost.firstKey && isWrittenAlready(newKey) {
            failed = true  // JSONEncoder keeps the last value of a key written twice
            return false
        }
        if keyCount < keys.count {
            keys[keyCount] = newKey
        } else {
            keys.append(newKey)
        }
        keyCount += 1
        return true
    }

    /// An object with more keys than this keeps a set of them; fewer are compared one by one.
    private static let keysComparedOneByOne = 16

    /// Whether the innermost object has a key that is the same `String` as `newKey`: the same
    /// bytes when both are ASCII, and otherwise the same by `String`'s comparison (canonical
    /// equivalence), as JSONEncoder's dictionary of keys sees them. Escaping changes only ASCII
    /// characters, the same way on both sides, so written keys compare as their strings do.
    private func isWrittenAlready(_ newKey: WrittenKey) -> Bool {
        let firstKey = innermost.firstKey
        let earlierKeys = keyCount - firstKey
        if earlierKeys < Self.keysComparedOneByOne {
            var index = firstKey
            while index < keyCount {
                let earlier = keys[index]
                if earlier.isASCII && newKey.isASCII {
                    if earlier.length == newKey.length
                        && output.bytesMatch(at: earlier.start, newKey.start, length: newKey.length)
                    {
                        return true
                    }
                } else if output.string(at: earlier.start, length: earlier.length)
                    == output.string(at: newKey.start, length: newKey.length)
                {
                    return true
                }
                index += 1
            }
            return false
        }
        let text = output.string(at: newKey.start, length: newKey.length)
        if keySets[innermost.id] == nil {
            keySets[innermost.id] = Set(
                keys[firstKey..<keyCount].map { output.string(at: $0.start, length: $0.length) })
        }
        return keySets[innermost.id]?.insert(text).inserted == false
    }

    /// The object of the value being encoded: a second `container(keyedBy:)` from the same value
    /// (a subclass after its superclass) adds to the first, as in JSONEncoder.
    private func objectFrame() -> Int {
        if openFrames > levelDepth {
            let frame = frame(at: levelDepth)
            if frame.isObject {
                closeFrames(downTo: levelDepth + 1)
                return frame.id
            }
            failed = true
        }
        return openFrame(isObject: true)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        keyedContainer(for: objectFrame())
    }

    /// A keyed container kept for reuse: its key type, its one reference (the box that
    /// `KeyedEncodingContainer` wraps, which only this table holds once the value that had it
    /// let go of it), and its slot in `slotFrames`.
    private struct ReusableKeyedContainer {
        let keyType: ObjectIdentifier
        var box: AnyObject
        let slot: Int
    }

    /// How many keyed containers a writer keeps: one per key type in most documents, one per
    /// level where a type nests itself.
    private static let reusableContainerLimit = 16

    /// The object that the keyed container in `slot` writes to.
    func frame(ofSlot slot: Int) -> Int {
        slotFrames[slot]
    }

    /// A keyed container that writes to object `frame`.
    ///
    /// `KeyedEncodingContainer` wraps each container in a box of its own, and making one costs
    /// an allocation and two lookups in the runtime's generic metadata cache, about what writing
    /// three small members costs. So a container is kept once its value has let go of it (its
    /// box is uniquely referenced from here) and handed out again for the next object of its key
    /// type, pointed at that object. One still held elsewhere is never reused, so a value that
    /// keeps its container and writes to it later writes to its own, closed object, where the
    /// writer steps aside as before.
    func keyedContainer<Key: CodingKey>(for frame: Int) -> KeyedEncodingContainer<Key> {
        let keyType = ObjectIdentifier(Key.self)
        var index = 0
        while index < reusableContainers.count {
            if reusableContainers[index].keyType == keyType && isKnownUniquelyReferenced(&reusableContainers[index].box)
            {
                slotFrames[reusableContainers[index].slot] = frame
                // The container is this key type's (the table's key) and is its box alone.
                return unsafeBitCast(reusableContainers[index].box, to: KeyedEncodingContainer<Key>.self)
            }
            index += 1
        }
        let slot = slotFrames.count
        slotFrames.append(frame)
        let container = KeyedEncodingContainer(KeyedContainer<Key>(writer: self, slot: slot))
        // Kept only where `KeyedEncodingContainer` is one reference, to its box (as in every
        // standard library so far): the two casts rely on it.
        if reusableContainers.count < Self.reusableContainerLimit,
            MemoryLayout<KeyedEncodingContainer<Key>>.size == MemoryLayout<AnyObject>.size
        {
            reusableContainers.append(
                ReusableKeyedContainer(keyType: keyType, box: unsafeBitCast(container, to: AnyObject.self), slot: slot))
        }
        return container
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if openFrames > levelDepth { failed = true }
        return UnkeyedContainer(writer: self, frame: openFrame(isObject: false))
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: self, mark: written)
    }

    func fail() {
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
