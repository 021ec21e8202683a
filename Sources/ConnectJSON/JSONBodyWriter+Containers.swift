#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The three containers an `Encodable` writes through, each appending to its writer's output.
extension JSONBodyWriter {
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let writer: JSONBodyWriter
        /// Where the writer keeps the object this container writes to.
        let slot: Int
        var codingPath: [any CodingKey] { writer.codingPath }
        private var frame: Int { writer.frame(ofSlot: slot) }

        private func begin(_ key: Key) throws {
            guard writer.beginMember(in: frame, key: key.stringValue) else { throw JSONBodyWriter.Unwritable() }
        }

        mutating func encodeNil(forKey key: Key) throws {
            try begin(key)
            writer.writeNull()
        }
        mutating func encode(_ value: Bool, forKey key: Key) throws {
            try begin(key)
            writer.writeBool(value)
        }
        mutating func encode(_ value: String, forKey key: Key) throws {
            try begin(key)
            writer.writeString(value)
        }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            try begin(key)
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            try begin(key)
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Int, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int8, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int16, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int32, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int64, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt8, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt16, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt32, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt64, forKey key: Key) throws {
            try begin(key)
            writer.writeInteger(value)
        }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try begin(key)
            try writer.writeValue(value, at: key)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            guard writer.beginMember(in: frame, key: key.stringValue) else {
                return writer.keyedContainer(for: -1)
            }
            return writer.keyedContainer(for: writer.openFrame(isObject: true))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            guard writer.beginMember(in: frame, key: key.stringValue) else {
                return UnkeyedContainer(writer: writer, frame: -1)
            }
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

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let writer: JSONBodyWriter
        let frame: Int
        private(set) var count = 0
        var codingPath: [any CodingKey] { writer.codingPath }

        init(writer: JSONBodyWriter, frame: Int) {
            self.writer = writer
            self.frame = frame
        }

        private mutating func begin() throws {
            guard writer.beginElement(in: frame) else { throw JSONBodyWriter.Unwritable() }
            count += 1
        }

        mutating func encodeNil() throws {
            try begin()
            writer.writeNull()
        }
        mutating func encode(_ value: Bool) throws {
            try begin()
            writer.writeBool(value)
        }
        mutating func encode(_ value: String) throws {
            try begin()
            writer.writeString(value)
        }
        mutating func encode(_ value: Double) throws {
            try begin()
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Float) throws {
            try begin()
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Int) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int8) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int16) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int32) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int64) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt8) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt16) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt32) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt64) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode<T: Encodable>(_ value: T) throws {
            let index = count
            try begin()
            try writer.writeValue(value, at: JSONBodyWriter.IndexKey(index: index))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            guard (try? begin()) != nil else {
                return writer.keyedContainer(for: -1)
            }
            return writer.keyedContainer(for: writer.openFrame(isObject: true))
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

    struct SingleValueContainer: SingleValueEncodingContainer {
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

        mutating func encodeNil() throws {
            try begin()
            writer.writeNull()
        }
        mutating func encode(_ value: Bool) throws {
            try begin()
            writer.writeBool(value)
        }
        mutating func encode(_ value: String) throws {
            try begin()
            writer.writeString(value)
        }
        mutating func encode(_ value: Double) throws {
            try begin()
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Float) throws {
            try begin()
            try writer.writeFloatingPoint(value)
        }
        mutating func encode(_ value: Int) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int8) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int16) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int32) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: Int64) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt8) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt16) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt32) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode(_ value: UInt64) throws {
            try begin()
            writer.writeInteger(value)
        }
        mutating func encode<T: Encodable>(_ value: T) throws {
            try begin()
            try writer.writeValue(value)
        }
    }
}
