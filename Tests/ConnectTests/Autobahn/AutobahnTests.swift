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
    /// as `CurlWebSocket.takeFrames` does.
    static func observe(_ testCase: AutobahnCase, pieceSize: Int) -> Observation {
        let limit = AutobahnCases.largestMessage
        var reader = WebSocketFrameReader(maximumPayload: limit)
        var assembler = WebSocketMessageAssembler(maximumMessageSize: limit)
        var state = WebSocketConnectionState()
        var observation = Observation()
        var bytes = Data()
        for case .send(let written) in testCase.serverSteps() { bytes += written }
        var offset = 0
        while offset < bytes.count, !observation.closedSocket {
            let end = min(bytes.count, offset + pieceSize)
            let piece = bytes[offset..<end]
            offset = end
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
                } catch {
                    violation = error
                }
            }
            if let violation { observation.take(state.failed(violation)) }
        }
        return observation
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
        let socket = try await sharedConnect.webSocket(TestConnector(url: server.webSocketURL), options: options)
        var delivered: [WebSocketMessage] = []
        var failure: (any Error)?
        do {
            for try await message in socket.messages {
                delivered.append(message)
                // The server waits for each echo before it closes (or sends the next, in 9.7 and 9.8).
                if testCase.ending == .closesNormally { try await socket.send(message) }
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
        switch testCase.ending {
        case .closesNormally, .echoesClose:
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(socket.closeCode == testCase.ending.clientCloseCode)
            if testCase.ending == .closesNormally {
                let echoes = expected.map { message -> ScriptedWebSocketServer.Transcript.Message in
                    switch message {
                    case .text(let text): .init(isText: true, bytes: Array(text.utf8))
                    case .binary(let data): .init(isText: false, bytes: Array(data))
                    }
                }
                let sameEchoes = transcript.messages == echoes
                #expect(sameEchoes, "the server got \(transcript.messages.count) messages back of \(echoes.count)")
            }
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
