import Foundation
import Testing

@testable import Connect

/// A WebSocket connection's life as a value: each event's actions, compared, and the phase it
/// leaves the connection in.
@Suite("WebSocket connection state")
struct WebSocketConnectionStateTests {
    typealias State = WebSocketConnectionState
    typealias Action = State.Action

    static func close(_ code: UInt16?, _ reason: String = "") -> WebSocketFrame {
        WebSocketFrame(opcode: .close, payload: WebSocketClosePayload(code: code, reason: reason).encoded)
    }

    @Test func aPingIsAnsweredWithItsPayloadAndAPongIsReported() {
        var state = State()
        #expect(state.received(.ping([1, 2])) == [.send(WebSocketFrame(opcode: .pong, payload: [1, 2]))])
        #expect(state.received(.pong([3])) == [.pongArrived([3])])
        #expect(state.received(.message(.text("hi"))) == [.deliver(.text("hi"))])
        #expect(state.phase == .open && state.deliversMessages)
    }

    @Test func theServersCloseIsEchoedAndEndsTheConnection() {
        var state = State()
        #expect(
            state.received(.close(WebSocketClosePayload(code: 1001, reason: "bye"))) == [
                .send(Self.close(1001)), .closeSocket
            ])
        #expect(state.phase == .closed(.closed(code: 1001, reason: "bye")))
        // Nothing more is sent, delivered or answered.
        #expect(state.received(.ping([])) == [])
        #expect(state.received(.message(.binary(Data([1])))) == [])
        #expect(!state.deliversMessages)
        #expect(throws: State.Refusal.self) { try state.send(.text("late")) }
        #expect(state.socketEnded() == [])
    }

    @Test func aCloseWithoutACodeIsEchoedEmpty() {
        var state = State()
        #expect(
            state.received(.close(WebSocketClosePayload(code: nil))) == [
                .send(WebSocketFrame(opcode: .close, payload: [])), .closeSocket
            ])
        #expect(state.phase == .closed(.closed(code: nil, reason: "")))
    }

    @Test func theApplicationsCloseWaitsForTheServers() throws {
        var state = State()
        #expect(try state.close(code: 1000, reason: "done") == [.send(Self.close(1000, "done"))])
        #expect(state.phase == .closing)
        // Messages already on their way still arrive; pings are no longer answered; nothing is sent.
        #expect(state.received(.message(.text("last"))) == [.deliver(.text("last"))])
        #expect(state.deliversMessages)
        #expect(state.received(.ping([9])) == [])
        #expect(throws: State.Refusal.self) { try state.send(.text("x")) }
        #expect(throws: State.Refusal.self) { try state.ping([]) }
        #expect(try state.close(code: 1000, reason: "again") == [])
        #expect(state.received(.close(WebSocketClosePayload(code: 1000, reason: "ok"))) == [.closeSocket])
        #expect(state.phase == .closed(.closed(code: 1000, reason: "ok")))
    }

    @Test(arguments: [999, 1004, 1005, 1006, 1015, 2999, 5000] as [UInt16])
    func codesTheApplicationMayNotSend(code: UInt16) {
        var state = State()
        #expect(throws: State.Refusal.self) { try state.close(code: code, reason: "") }
        #expect(state.phase == .open)
    }

    @Test func aViolationClosesWithItsCode() {
        var state = State()
        let violation = WebSocketProtocolViolation.invalidData("a text message is not UTF-8")
        #expect(state.failed(violation) == [.send(Self.close(1007, "a text message is not UTF-8")), .closeSocket])
        #expect(state.phase == .closed(.failed(violation)))
        #expect(state.failed(.protocolError("again")) == [])
    }

    @Test func aViolationWhileClosingSendsNoSecondClose() throws {
        var state = State()
        _ = try state.close(code: 1000, reason: "")
        #expect(state.failed(.protocolError("x")) == [.closeSocket])
    }

    @Test(arguments: [false, true])
    func theSocketEndingWithoutACloseIsADrop(closing: Bool) throws {
        var state = State()
        if closing { _ = try state.close(code: 1000, reason: "") }
        #expect(state.socketEnded() == [.closeSocket])
        #expect(state.phase == .closed(.dropped))
    }

    @Test(
        arguments: [
            (5, 10, [5]), (10, 10, [10]), (11, 10, [10, 1]), (25, 10, [10, 10, 5]), (0, 10, [0])
        ] as [(Int, Int, [Int])])
    func messagesGoOutInFragments(size: Int, fragmentSize: Int, fragments: [Int]) throws {
        var state = State()
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
        let actions = try state.send(.binary(bytes), fragmentSize: fragmentSize)
        let frames = actions.compactMap { action -> WebSocketFrame? in
            if case .send(let frame) = action { return frame }
            return nil
        }
        #expect(frames.count == actions.count)
        #expect(frames.map(\.payload.count) == fragments)
        #expect(frames.map(\.opcode) == [.binary] + Array(repeating: .continuation, count: fragments.count - 1))
        #expect(frames.map(\.isFinal) == Array(repeating: false, count: fragments.count - 1) + [true])
        #expect(frames.flatMap(\.payload) == Array(bytes))
    }

    @Test func aPingOverAControlFramesSizeIsRefused() {
        var state = State()
        #expect(throws: State.Refusal.self) { try state.ping(Array(repeating: 0, count: 126)) }
        #expect(
            (try? state.ping(Array(repeating: 0, count: 125))) == [
                .send(WebSocketFrame(opcode: .ping, payload: Array(repeating: 0, count: 125)))
            ])
    }
}
