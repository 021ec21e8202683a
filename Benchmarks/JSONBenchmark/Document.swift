import Connect
import Foundation

/// `make bench`'s POST body: 22 to-do items, 1 KiB of JSON.
enum Document {
    struct Item: Encodable, Sendable {
        let id: Int
        let title: String
        let done: Bool
    }

    /// `Item` writing its own JSON, as an application would write it by hand.
    struct WritableItem: Encodable, JSONWritable, Sendable {
        let id: Int
        let title: String
        let done: Bool

        func write(to json: inout JSONWriter) {
            json.writeObject { json in
                json.write(id, forKey: "id")
                json.write(title, forKey: "title")
                json.write(done, forKey: "done")
            }
        }
    }

    static let items = (0..<22).map { Item(id: $0, title: String(format: "todo %03d", $0), done: $0 % 2 == 0) }
    static let writableItems = items.map { WritableItem(id: $0.id, title: $0.title, done: $0.done) }

    /// The document's bytes as `JSONEncoder` writes them, by a function that knows its shape:
    /// what a value that writes its own JSON would cost.
    static func writtenDirectly() -> Data {
        var bytes = Bytes()
        bytes.append("[")
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(",") }
            bytes.append(#"{"id":"#)
            bytes.appendDigits(of: item.id)
            bytes.append(#","title":""#)
            bytes.append(item.title)  // no character here needs an escape
            bytes.append(#"","done":"#)
            bytes.append(item.done ? "true" : "false")
            bytes.append("}")
        }
        bytes.append("]")
        defer { bytes.free() }
        return bytes.storage
    }

    /// A byte buffer as a JSON writer would keep one: a block with room to spare, written
    /// without `Array`'s checks.
    private struct Bytes {
        private var block = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        private var count = 0
        private var capacity = 4096

        var storage: Data {
            Data(bytes: block, count: count)
        }

        func free() {
            block.deallocate()
        }

        private mutating func makeRoom(for extra: Int) {
            guard count + extra > capacity else { return }
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + extra))
            grown.update(from: block, count: count)
            block.deallocate()
            block = grown
            capacity = max(capacity * 2, count + extra)
        }

        mutating func append(_ text: StaticString) {
            makeRoom(for: text.utf8CodeUnitCount)
            (block + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
            count += text.utf8CodeUnitCount
        }

        mutating func append(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                makeRoom(for: utf8.count)
                (block + count).update(from: utf8.baseAddress!, count: utf8.count)
                count += utf8.count
            }
        }

        mutating func appendDigits(of value: Int) {
            makeRoom(for: 21)
            if value < 0 {
                block[count] = UInt8(ascii: "-")
                count += 1
            }
            var digits = 1
            var power = 10
            while value.magnitude >= power && digits < 19 {
                digits += 1
                power *= 10
            }
            var magnitude = value.magnitude
            for index in stride(from: count + digits - 1, through: count, by: -1) {
                block[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            count += digits
        }
    }
}
