import ConnectTestServer
import Foundation

/// Server frames as bytes (RFC 6455 §5.2), with any bits and opcodes a test needs: for the
/// scripted servers of `WebSocketScriptedTests` and the Autobahn table.
enum ServerFrame {
    /// A frame, its length in the fewest bytes; `masked` (which no server may send) with a zero
    /// key, which leaves the payload as it is.
    static func make(
        _ opcode: UInt8, _ payload: [UInt8] = [], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = false
    ) -> Data {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 0x7) << 4 | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(mask | UInt8(payload.count))
        case ..<65_536: bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(truncatingIfNeeded: payload.count)]
        default:
            bytes += [mask | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        if masked { bytes += [0, 0, 0, 0] }
        return Data(bytes + payload)
    }

    static func make(_ opcode: UInt8, _ text: String, fin: Bool = true, rsv: UInt8 = 0) -> Data {
        make(opcode, Array(text.utf8), fin: fin, rsv: rsv)
    }

    static func close(_ code: UInt16?, reason: [UInt8] = []) -> Data {
        guard let code else { return make(0x8) }
        return make(0x8, [UInt8(code >> 8), UInt8(truncatingIfNeeded: code)] + reason)
    }

    /// A message's frames: `fragmentSize` bytes each (all of it in one frame for 0).
    static func message(_ opcode: UInt8, _ payload: [UInt8], fragmentSize: Int = 0) -> Data {
        guard fragmentSize > 0, payload.count > fragmentSize else { return make(opcode, payload) }
        var frames = Data()
        for start in stride(from: 0, to: payload.count, by: fragmentSize) {
            let end = min(payload.count, start + fragmentSize)
            frames += make(start == 0 ? opcode : 0x0, Array(payload[start..<end]), fin: end == payload.count)
        }
        return frames
    }

    /// `bytes` written in pieces of `size`.
    static func chopped(_ bytes: Data, _ size: Int) -> [ScriptedWebSocketServer.Step] {
        stride(from: 0, to: bytes.count, by: size).map { start in
            .send(bytes.subdata(in: start..<min(bytes.count, start + size)))
        }
    }

    /// `pattern` repeated to `count` bytes, as Autobahn fills its long payloads. Built by doubling
    /// (a copy of what is there so far, a whole number of patterns long, appended to it), so that
    /// the tests' 16 MiB payloads take a few dozen copies rather than a closure call per byte,
    /// which an unoptimized test build spends seconds on.
    static func filled(_ pattern: String, _ count: Int) -> [UInt8] {
        var bytes = Array(pattern.utf8)
        precondition(!bytes.isEmpty || count == 0, "an empty pattern fills nothing")
        while bytes.count < count {
            bytes += Array(bytes.prefix(count - bytes.count))
        }
        bytes.removeLast(bytes.count - count)  // a pattern longer than `count`
        return bytes
    }
}
