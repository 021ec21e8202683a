import ConnectTestServer
import Foundation
import Testing

@testable import Connect

/// The Autobahn|Testsuite's client cases of sections 1 to 7 and 9 (`AutobahnCases`), each run
/// twice: through the decision values a socket runs on (frame reader, message assembler,
/// connection state), fed whole and one byte at a time, and against ``ScriptedWebSocketServer``
/// over a socket, where the client echoes what it gets and the server checks what came back.
///
/// Serialized: hundreds of sockets and megabytes at once would take the machine from the other
/// suites' tests, whose timeouts are seconds.
@Suite("Autobahn|Testsuite cases", .serialized, .timeLimit(.minutes(5)))
struct AutobahnTests {
    /// What the client did with a case's bytes.
    struct Observation: Equatable {
        var delivered: [WebSocketMessage] = []
        var pongs: [[UInt8]] = []
        /// The code of each close frame sent (`nil` for an empty one).
        var closeCodes: [UInt16?] = []
        var closedSocket = false

        mutating func take(_ actions: [WebSocketConnectionState.Action]) {
            for action in actions {
                switch action {
                case .send(let frame) where frame.opcode == .pong:
                    pongs.append(frame.payload)
                case .send(let frame) where frame.opcode == .close:
                    closeCodes.append(
                        frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil)
                case .send, .pongArrived:
                    break
                case .deliver(let message):
                    delivered.append(message)
                case .closeSocket:
                    closedSocket = true
                }
            }
        }
    }

    /// Feeds the server's bytes to the values the socket runs on, `pieceSize` bytes at a time,
    /// as `CurlWebSocket.takeFrames` does. In pieces of one byte, a stream longer than 8 KiB is
    /// cut so only in its first and last 4 KiB, and in pieces of 1,021 bytes between: the long
    /// streams (section 1's 64 KiB messages) are one frame each, whose head and close fall in
    /// those, and a cut inside a long payload is read as any other. A byte at a time of them took
    /// most of the suite's time under ThreadSanitizer.
    static func observe(_ testCase: AutobahnCase, pieceSize: Int) -> Observation {
        var bytes = Data()
        for case .send(let written) in testCase.serverSteps() { bytes += written }
        var pieces: [Data] = []
        var offset = 0
        while offset < bytes.count {
            let size = pieceSize == 1 && offset >= 4096 && bytes.count - offset > 4096 ? 1021 : pieceSize
            let end = offset + min(size, bytes.count - offset)
            pieces.append(bytes[offset..<end])
            offset = end
        }
        return observe(pieces).observation
    }

    /// Feeds `pieces` to the values the socket runs on, one read each, as
    /// `CurlWebSocket.takeFrames` does (the beginning of a frame not yet whole checked too); with
    /// the number of pieces read when the socket closed.
    static func observe(_ pieces: [Data]) -> (observation: Observation, piecesRead: Int) {
        let limit = AutobahnCases.largestMessage
        var reader = WebSocketFrameReader(maximumPayload: limit)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: limit)
        var state = WebSocketConnectionState()
        var observation = Observation()
        var piecesRead = 0
        for piece in pieces where !observation.closedSocket {
            piecesRead += 1
            var violation: WebSocketProtocolViolation?
            piece.withUnsafeBytes { piece in
                do throws(WebSocketProtocolViolation) {
                    try reader.read(piece) { header, payload in
                        guard !observation.closedSocket else { return false }
                        do throws(WebSocketProtocolViolation) {
                            guard let event = try assembler.take(header, payload: payload) else { return true }
                            observation.take(state.received(event))
                            return true
                        } catch {
                            violation = error
                            return false
                        }
                    }
                    if violation == nil, !observation.closedSocket {
                        try reader.withPartialFrame { header, payload throws(WebSocketProtocolViolation) in
                            try assembler.checkBeginning(of: header, payloadSoFar: payload)
                        }
                    }
                } catch {
                    violation = error
                }
            }
            if let violation { observation.take(state.failed(violation)) }
        }
        return (observation, piecesRead)
    }

    /// A short account of messages, for a failure's report (section 9's run to megabytes).
    static func summary(_ messages: [WebSocketMessage]) -> String {
        let kinds = messages.prefix(3).map { message -> String in
            switch message {
            case .text(let text): "text(\(text.utf8.count) bytes: \(text.prefix(24).debugDescription))"
            case .binary(let data): "binary(\(data.count) bytes)"
            }
        }
        return "\(messages.count) messages: " + kinds.joined(separator: ", ") + (messages.count > 3 ? ", …" : "")
    }

    /// Every case but section 9's: its megabytes run over the socket alone (through the same
    /// values), where a debug build checks them in seconds rather than a minute.
    static var smallCases: [AutobahnCase] { AutobahnCases.all.filter { $0.section != 9 } }

    @Test(arguments: smallCases)
    func theDecisionValuesDoWhatTheCaseAsks(_ testCase: AutobahnCase) {
        let expectedDelivered = testCase.delivered()
        for pieceSize in [Int.max, 1] {
            let observation = Self.observe(testCase, pieceSize: pieceSize)
            let sameMessages = observation.delivered == expectedDelivered
            #expect(
                sameMessages,
                "\(testCase.id) in pieces of \(pieceSize): delivered \(Self.summary(observation.delivered)), expected \(Self.summary(expectedDelivered))"
            )
            #expect(observation.pongs == testCase.pongs, "\(testCase.id) in pieces of \(pieceSize)")
            #expect(
                observation.closeCodes == [testCase.ending.clientCloseCode], "\(testCase.id) in pieces of \(pieceSize)")
            #expect(observation.closedSocket, "\(testCase.id) in pieces of \(pieceSize)")
        }
    }

    /// The fail-fast cases (6.4): the server writes a text message in pieces, with a pause
    /// between, and the piece that breaks UTF-8 fails the connection before the next is read,
    /// whether the pieces are frames (6.4.1, 6.4.2) or parts of one frame (6.4.3, 6.4.4).
    @Test(arguments: AutobahnCases.all.filter { $0.id.hasPrefix("6.4.") })
    func theBreakingPieceFailsTheConnectionBeforeTheNext(_ testCase: AutobahnCase) {
        let writes = testCase.serverSteps().compactMap { step -> Data? in
            if case .send(let bytes) = step { return bytes }
            return nil
        }
        #expect(writes.count == 3)
        let (observation, piecesRead) = Self.observe(writes)
        #expect(observation.closeCodes == [1007])
        #expect(observation.closedSocket)
        #expect(piecesRead == 2, "the connection failed after piece \(piecesRead) of \(writes.count)")
    }

    /// Every case, or under a sanitizer all but 6.5 to 6.23: one text frame each, which the
    /// decision values read above as the socket reads them.
    static var socketCases: [AutobahnCase] {
        AutobahnCases.all.filter { testCase in
            guard AutobahnCases.isSanitized, testCase.section == 6 else { return true }
            return ["6.1.", "6.2.", "6.3.", "6.4."].contains { testCase.id.hasPrefix($0) }
        }
    }

    @Test(arguments: socketCases)
    func aSocketDoesWhatTheCaseAsks(_ testCase: AutobahnCase) async throws {
        let server = try ScriptedWebSocketServer(script: testCase.serverSteps)
        defer { server.shutdown() }
        var options = WebSocketOptions.default
        options.maximumMessageSize = AutobahnCases.largestMessage
        // How long a violation waits for the reader to answer the messages before it; the
        // server answers every close at once.
        options.closeTimeout = .seconds(300)
        let socket = try await sharedConnect.webSocket(TestConnector(url: server.webSocketURL), options: options)
        var delivered: [WebSocketMessage] = []
        var failure: (any Error)?
        do {
            for try await message in socket.messages {
                delivered.append(message)
                // The server waits for each echo before it closes (or sends the next, in 9.7 and
                // 9.8); a case that fails gets the echoes of the messages before its violation
                // before the connection fails, as Autobahn's strict reading asks.
                if testCase.ending.clientEchoes { try await socket.send(message) }
            }
        } catch {
            failure = error
        }
        let transcript = try await server.transcript()
        let expected = testCase.delivered()
        let sameMessages = delivered == expected
        #expect(sameMessages, "delivered \(Self.summary(delivered)), expected \(Self.summary(expected))")
        #expect(transcript.pongs == testCase.pongs)
        #expect(transcript.close != nil, "the client sent no close frame")
        #expect(transcript.close?.code == testCase.ending.clientCloseCode)
        #expect(transcript.violations.isEmpty)
        if testCase.ending.clientEchoes {
            let echoes = expected.map { message -> ScriptedWebSocketServer.Transcript.Message in
                switch message {
                case .text(let text): .init(isText: true, bytes: Array(text.utf8))
                case .binary(let data): .init(isText: false, bytes: Array(data))
                }
            }
            let sameEchoes = transcript.messages == echoes
            #expect(sameEchoes, "the server got \(transcript.messages.count) messages back of \(echoes.count)")
        }
        switch testCase.ending {
        case .closesNormally, .echoesClose:
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(socket.closeCode == testCase.ending.clientCloseCode)
        case .fails(let code):
            guard case WebSocketError.protocolViolation(let closeCode, _)? = failure else {
                Issue.record("expected a violation closing with \(code), got \(String(describing: failure))")
                return
            }
            #expect(closeCode == code)
        }
    }

    /// The table holds every case of Autobahn's sections 1 to 7 and 9, as counted in its `case`
    /// directory.
    @Test func theTableHasEveryCase() {
        let counts = Dictionary(grouping: AutobahnCases.all, by: \.section).mapValues(\.count)
        #expect(counts == [1: 16, 2: 11, 3: 7, 4: 10, 5: 20, 6: 145, 7: 37, 9: 55])
        #expect(Set(AutobahnCases.all.map(\.id)).count == AutobahnCases.all.count)
    }
}
