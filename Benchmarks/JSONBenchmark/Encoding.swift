import Connect
import Foundation

/// The encoders the benchmark compares.
enum Encoding: String, CaseIterable {
    case foundation = "jsonencoder"
    case connect
    case writable
    case codableAlone = "codable"
    case withoutCodable = "direct"

    var title: String {
        switch self {
        case .foundation: "Foundation's JSONEncoder"
        case .connect: "Connect's RequestBody.json"
        case .writable: "Connect's RequestBody.json, JSONWritable items"
        case .codableAlone: "Codable alone (an encoder that writes nothing)"
        case .withoutCodable: "the same bytes without Codable"
        }
    }

    /// Encodes `value` and returns how many bytes that made.
    @inline(never)
    func encode(_ value: any Encodable) throws -> Int {
        switch self {
        case .foundation:
            return try JSONEncoder().encode(value).count
        case .connect, .writable:
            return try RequestBody.json(value).count ?? 0
        case .codableAlone:
            let encoder = NothingEncoder()
            try value.encode(to: encoder)
            return encoder.values
        case .withoutCodable:
            return Document.writtenDirectly().count
        }
    }
}
