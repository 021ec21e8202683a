import Testing

@testable import Connect

/// The connection tracker's sockets by ports: each step of a table of opens, replacements and
/// closes, checked against a dictionary doing the same, and every key looked up after each step.
@Suite("Sockets by ports")
struct SocketsByPortsTests {
    enum Step: Sendable, CustomTestStringConvertible {
        case set(ports: Int, socket: Int32)
        case remove(ports: Int, socket: Int32)

        var testDescription: String {
            switch self {
            case .set(let ports, let socket): "set \(ports) → \(socket)"
            case .remove(let ports, let socket): "remove \(ports) if \(socket)"
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    static let local = ConnectionTracker.ports(local: 40_001, remote: 8080)

    static let rows: [Row] = [
        Row(name: "empty", steps: []),
        Row(name: "one connection", steps: [.set(ports: 5, socket: 7)]),
        Row(name: "added in rising order", steps: (1...9).map { .set(ports: $0 * 10, socket: Int32($0)) }),
        Row(name: "added in falling order", steps: (1...9).reversed().map { .set(ports: $0 * 10, socket: Int32($0)) }),
        Row(
            name: "added out of order",
            steps: [30, 10, 50, 20, 40, 0, 60].map { .set(ports: $0, socket: Int32($0 + 3)) }),
        Row(
            name: "the same ports on a new socket replace the old",
            steps: [.set(ports: 20, socket: 4), .set(ports: 10, socket: 3), .set(ports: 20, socket: 9)]),
        Row(
            name: "closing a socket forgets its ports",
            steps: [
                .set(ports: 10, socket: 3), .set(ports: 20, socket: 4), .set(ports: 30, socket: 5),
                .remove(ports: 20, socket: 4)
            ]),
        Row(
            name: "closing the first and the last",
            steps: [
                .set(ports: 10, socket: 3), .set(ports: 20, socket: 4), .set(ports: 30, socket: 5),
                .remove(ports: 10, socket: 3), .remove(ports: 30, socket: 5)
            ]),
        Row(
            name: "an old socket closing keeps the newer one with its ports",
            steps: [.set(ports: 10, socket: 3), .set(ports: 10, socket: 8), .remove(ports: 10, socket: 3)]),
        Row(
            name: "ports never added",
            steps: [
                .set(ports: 10, socket: 3), .remove(ports: 15, socket: 3), .remove(ports: 5, socket: 3),
                .remove(ports: 99, socket: 3)
            ]),
        Row(
            name: "closed, then opened again",
            steps: [.set(ports: 10, socket: 3), .remove(ports: 10, socket: 3), .set(ports: 10, socket: 3)]),
        Row(
            name: "ports as libcurl gives them",
            steps: [
                .set(ports: local, socket: 6),
                .set(ports: ConnectionTracker.ports(local: 40_002, remote: 8080), socket: 7),
                .set(ports: ConnectionTracker.ports(local: 40_001, remote: 443), socket: 8)
            ])
    ]

    @Test(arguments: rows)
    func findsWhatADictionaryWould(_ row: Row) {
        var index = SocketsByPorts()
        var expected: [Int: Int32] = [:]
        var keys: Set<Int> = [0, 1, Int.max - 1]
        for step in row.steps {
            switch step {
            case .set(let ports, let socket):
                index.set(socket, for: ports)
                expected[ports] = socket
                keys.insert(ports)
            case .remove(let ports, let socket):
                index.remove(socket, for: ports)
                if expected[ports] == socket { expected[ports] = nil }
                keys.insert(ports)
            }
            #expect(index.count == expected.count, "after \(step.testDescription)")
            for key in keys.union(keys.map { $0 + 1 }) {
                #expect(index[key] == expected[key], "ports \(key) after \(step.testDescription)")
            }
        }
    }

    /// Many connections, opened and closed in a scrambled order.
    @Test func manyConnections() {
        var index = SocketsByPorts()
        var expected: [Int: Int32] = [:]
        let order = (0..<500).map { ($0 * 7919) % 500 }
        for (socket, ports) in order.enumerated() {
            index.set(Int32(socket), for: ports * 3)
            expected[ports * 3] = Int32(socket)
        }
        for (socket, ports) in order.enumerated() where socket.isMultiple(of: 3) {
            index.remove(Int32(socket), for: ports * 3)
            expected[ports * 3] = nil
        }
        #expect(index.count == expected.count)
        for ports in 0..<1_501 {
            #expect(index[ports] == expected[ports])
        }
    }
}
