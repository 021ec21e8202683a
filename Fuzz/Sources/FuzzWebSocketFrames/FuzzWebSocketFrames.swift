import FuzzSupport

@testable import Connect

/// A server's WebSocket bytes, cut into pieces as the first byte chooses: the reader reads the
/// same frames (or refuses at the same frame, with the same close code) as when the bytes come
/// whole; every frame it reads obeys RFC 6455's limits and, written back unmasked, is the bytes it
/// was read from. The same bytes as text: `UTF8Validator` agrees with Swift's own UTF-8
/// validation, however the text is cut. As a close frame's payload: what reads, writes back. The
/// frames put together into messages stay within the message size, inflated ones too; put
/// together as the socket does, checking the beginning of a frame not yet whole after each
/// piece, they make the same messages, and fail where, and only where, whole frames fail. As a
/// permessage-deflate payload: inflating stops at its limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let (choice, data) = FuzzInput(start, count).choiceAndData
    let allowsCompression = choice & 0x80 != 0
    let maximumPayload = choice & 0x40 != 0 ? 300 : 1 << 20

    let whole = readFrames([data], maximumPayload: maximumPayload, allowsCompression: allowsCompression)
    let pieces = FuzzInput.pieces(of: data, sizes: FuzzInput.sizes(from: choice))
    let cut = readFrames(pieces, maximumPayload: maximumPayload, allowsCompression: allowsCompression)
    require(whole.frames == cut.frames, "the frames differ when the bytes come in pieces")
    require(
        whole.violation == cut.violation,
        "\(String(describing: whole.violation)) whole, \(String(describing: cut.violation)) in pieces")

    var consumed = 0
    for frame in whole.frames {
        require(frame.payload.count <= maximumPayload, "a payload over the maximum was read")
        if frame.opcode.isControl {
            require(frame.isFinal && frame.payload.count <= 125, "a control frame breaks §5.5")
        }
        require(!frame.isCompressed || allowsCompression, "RSV1 was read without compression")
        // Written back as a server sends it (unmasked): the very bytes it was read from.
        var bytes = frame.encoded(maskingKey: 0)
        let keyStart = bytes.count - frame.payload.count - 4
        bytes.removeSubrange(keyStart..<(keyStart + 4))
        bytes[1] &= 0x7F
        require(Array(data[consumed..<(consumed + bytes.count)]) == bytes, "a frame reads back differently")
        consumed += bytes.count
    }

    // The frames put together into messages: each within the size (inflated too, with
    // permessage-deflate), text as it came.
    var assembler = WebSocketMessageAssembler(
        maximumMessageSize: 500,
        compression: allowsCompression ? PermessageDeflate(parameters: DeflateParameters()) : nil)
    assembling: for frame in whole.frames {
        let event: WebSocketMessageAssembler.Event?
        do {
            event = try assembler.take(frame)
        } catch {
            break assembling
        }
        guard case .message(let message)? = event else { continue }
        switch message {
        case .text(let text): require(text.utf8.count <= 500, "a text message over the maximum")
        case .binary(let bytes): require(bytes.count <= 500, "a binary message over the maximum")
        }
    }

    let assembledWhole = assembleAsTheSocketDoes([data], allowsCompression: allowsCompression)
    let assembledInPieces = assembleAsTheSocketDoes(pieces, allowsCompression: allowsCompression)
    require(assembledWhole.events == assembledInPieces.events, "the messages differ when the bytes come in pieces")
    require(
        (assembledWhole.failure == nil) == (assembledInPieces.failure == nil),
        "\(String(describing: assembledWhole.failure)) whole, \(String(describing: assembledInPieces.failure)) in pieces"
    )

    var validator = UTF8Validator()
    let middle = data.count / 2
    let accepts = validator.accepts(data[..<middle]) && validator.accepts(data[middle...]) && validator.isComplete
    require(accepts == (String(validating: data, as: UTF8.self) != nil), "UTF-8 judged unlike Swift's")

    if data.count <= 125, let close = try? WebSocketClosePayload(reading: data) {
        require(close.encoded == data, "a close payload writes back differently")
    }

    // As a handshake answer's Sec-WebSocket-Protocol and Sec-WebSocket-Extensions: what is
    // accepted was offered, and its window sizes are in range.
    let text = String(decoding: data, as: UTF8.self)
    let handshake = WebSocketHandshake(key: "k", subprotocols: ["chat"], compressionOffer: .default)
    let headers = [
        HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "upgrade"),
        HTTPHeader(name: "Sec-WebSocket-Accept", value: WebSocketHandshake.acceptValue(for: "k")),
        HTTPHeader(name: choice & 1 == 0 ? "Sec-WebSocket-Extensions" : "Sec-WebSocket-Protocol", value: text)
    ]
    if let outcome = try? handshake.outcome(status: 101, headers: headers) {
        require(outcome.subprotocol == nil || outcome.subprotocol == "chat", "a subprotocol not offered was accepted")
        if let compression = outcome.compression {
            require((8...15).contains(compression.serverMaxWindowBits), "a server window out of range")
            require((8...15).contains(compression.clientMaxWindowBits), "a client window out of range")
        }
    }
    // As a compressed message's payload: inflated within the limit, or refused.
    if let inflater = PermessageDeflate(parameters: DeflateParameters()),
        let inflated = try? inflater.decompress(Array(data), limit: 1_000)
    {
        require(inflated.count <= 1_000, "a payload inflated past its limit")
    }
    return 0
}

private func readFrames(
    _ pieces: [[UInt8]], maximumPayload: Int, allowsCompression: Bool
)
    -> (frames: [WebSocketFrame], violation: WebSocketProtocolViolation?)
{
    var reader = WebSocketFrameReader(maximumPayload: maximumPayload, allowsCompression: allowsCompression)
    var frames: [WebSocketFrame] = []
    for piece in pieces {
        var violation: WebSocketProtocolViolation?
        piece.withUnsafeBytes { bytes in
            do throws(WebSocketProtocolViolation) {
                try reader.read(bytes) { header, payload in
                    require(payload.count == header.payloadLength, "a payload of the wrong length was lent")
                    frames.append(WebSocketFrame(header, payload: payload))
                    return true
                }
            } catch {
                violation = error
            }
        }
        if let violation { return (frames, violation) }
    }
    return (frames, nil)
}

/// The events of `pieces` read as `CurlWebSocket.takeFrames` reads them: whole frames put
/// together into messages, then the beginning of the frame not yet whole checked; the first
/// violation ends them. Compressed messages are refused (no permessage-deflate here), as a
/// socket that did not negotiate it refuses them.
private func assembleAsTheSocketDoes(
    _ pieces: [[UInt8]], allowsCompression: Bool
) -> (events: [WebSocketMessageAssembler.Event], failure: WebSocketProtocolViolation?) {
    var reader = WebSocketFrameReader(maximumPayload: 1 << 20, allowsCompression: allowsCompression)
    var assembler = WebSocketMessageAssembler(maximumMessageSize: 500)
    var events: [WebSocketMessageAssembler.Event] = []
    for piece in pieces {
        var failure: WebSocketProtocolViolation?
        piece.withUnsafeBytes { bytes in
            do throws(WebSocketProtocolViolation) {
                try reader.read(bytes) { header, payload in
                    do throws(WebSocketProtocolViolation) {
                        if let event = try assembler.take(header, payload: payload) { events.append(event) }
                        return true
                    } catch {
                        failure = error
                        return false
                    }
                }
                guard failure == nil else { return }
                try reader.withPartialFrame { header, payload throws(WebSocketProtocolViolation) in
                    try assembler.checkBeginning(of: header, payloadSoFar: payload)
                }
            } catch {
                failure = error
            }
        }
        if let failure { return (events, failure) }
    }
    return (events, nil)
}
