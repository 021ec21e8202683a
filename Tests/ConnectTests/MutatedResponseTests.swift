import ConnectFutures
import ConnectTestServer
import Foundation
import Testing
import SharedTestSupport

@testable import Connect

/// An end-to-end randomized run: a scripted server answers many concurrent requests on shared
/// connections, each with a well-formed response naming the request or with one of the
/// malformed families the fault suite tests one at a time, chosen by a seeded generator. Every
/// request must get its own answer or a typed failure: never another request's body, never a
/// hang, never a crash.
@Suite("Mutated responses", .timeLimit(.minutes(5)))
struct MutatedResponseTests {
    /// One way of answering, and whether a client may take it as a success.
    enum Family: CaseIterable {
        case good, goodChunked, goodGzipChunked, strayBytesAfter, interimFirst
        case truncatedBody, truncatedHead, garbageStatus, http2Lie, foldedFirstLine, badChunkSize, chunkTooLong
        case crInValue, twoLengths, foldedLength, unaskedTransferCoding, resetMidBody, closeUnanswered,
            trailerWithoutColon

        /// A well-formed answer: the request must succeed with its own body.
        var isGood: Bool {
            switch self {
            case .good, .goodChunked, .goodGzipChunked, .strayBytesAfter, .interimFirst: return true
            default: return false
            }
        }

        /// The steps that answer with `body`.
        func steps(_ body: String) -> [RawServer.Step] {
            let length = body.utf8.count
            let chunked = "\(String(length, radix: 16))\r\n\(body)\r\n0\r\n\r\n"
            switch self {
            case .good: return [.send("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n\(body)")]
            case .goodChunked: return [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(chunked)")]
            case .goodGzipChunked:
                let gzipped = CompressedBodyTests.deflated(Data(body.utf8))
                return [
                    .send(
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n\(String(gzipped.count, radix: 16))\r\n"
                                .utf8)
                            + gzipped + Data("\r\n0\r\n\r\n".utf8))
                ]
            case .strayBytesAfter:
                return [
                    .send(
                        "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n\(body)HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray"
                    )
                ]
            case .interimFirst:
                return [
                    .send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n\(body)")
                ]
            case .truncatedBody:
                return [.send("HTTP/1.1 200 OK\r\nContent-Length: \(length + 10)\r\n\r\n\(body)"), .close]
            case .truncatedHead: return [.send("HTTP/1.1 200 OK\r\nContent-Le"), .close]
            case .garbageStatus: return [.send("HTTQ/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n\(body)"), .close]
            case .http2Lie: return [.send("HTTP/2 200\r\nContent-Length: \(length)\r\n\r\n\(body)")]
            case .foldedFirstLine:
                return [.send("HTTP/1.1 200 OK\r\n X: y\r\nContent-Length: \(length)\r\n\r\n\(body)")]
            case .badChunkSize:
                return [
                    .send(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x\(String(length, radix: 16))\r\n\(body)\r\n0\r\n\r\n"
                    )
                ]
            case .chunkTooLong:
                return [
                    .send(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(String(length + 1, radix: 16))\r\n\(body)\r\n0\r\n\r\n"
                    )
                ]
            case .crInValue:
                return [.send("HTTP/1.1 200 OK\r\nX-Bad: a\rb\r\nContent-Length: \(length)\r\n\r\n\(body)")]
            case .twoLengths:
                return [
                    .send(
                        "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nContent-Length: \(length + 1)\r\n\r\n\(body)")
                ]
            case .foldedLength: return [.send("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n \(length)\r\n\r\n\(body)")]
            case .unaskedTransferCoding:
                return [.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: x-custom, chunked\r\n\r\n\(chunked)")]
            case .resetMidBody:
                return [
                    .send("HTTP/1.1 200 OK\r\nContent-Length: \(length + 10)\r\n\r\n\(body.prefix(3))"),
                    .pause(.milliseconds(5)), .reset
                ]
            case .closeUnanswered: return [.close]
            case .trailerWithoutColon:
                return [
                    .send(
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\(String(length, radix: 16))\r\n\(body)\r\n0\r\nnot a field\r\n\r\n"
                    )
                ]
            }
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyRequestGetsItsOwnAnswerOrATypedFailure(seed: UInt64) async throws {
        var generator = SeededGenerator(state: seed)
        let families = (0..<400).map { _ in Family.allCases.randomElement(using: &generator)! }
        let plan = families
        let server = try RawServer { request, _ in
            // "/r/<index>": the index chooses the family; the body names the request.
            let index = Int(request.path.split(separator: "/").last ?? "") ?? 0
            return plan[index % plan.count].steps(
                "answer to \(request.path) " + String(repeating: "x", count: index % 50))
        }
        defer { server.shutdown() }
        var configuration = ConnectConfiguration()
        configuration.maximumConnectionsPerHost = 8
        let connect = Connect(configuration: configuration)
        var failures = 0
        var successes = 0
        // Waves of 16 in flight, so that connections are shared and reused across families.
        for wave in stride(from: 0, to: families.count, by: 16) {
            let indices = Array(wave..<min(wave + 16, families.count))
            let futures = indices.map { index in
                // Every family ends its answer or its connection: the timeout bounds a hang only,
                // past what a loaded sanitizer run can stall the transfer threads for.
                (index, connect.request(TestConnector(server, "/r/\(index)", timeout: .seconds(300))))
            }
            for (index, future) in futures {
                let expected = Data(("answer to /r/\(index) " + String(repeating: "x", count: index % 50)).utf8)
                switch await outcome(future) {
                case .success(let body):
                    #expect(
                        body == expected,
                        "request \(index) (\(families[index])) got \(String(decoding: body, as: UTF8.self).debugDescription)"
                    )
                    successes += 1
                case .failure(let error):
                    failures += 1
                    #expect(!families[index].isGood, "request \(index) (\(families[index])) failed: \(error)")
                    guard case .transport(let failure) = error as? ConnectError else {
                        Issue.record("request \(index) (\(families[index])) failed untyped: \(error)")
                        continue
                    }
                    #expect(failure.kind != .other, "request \(index) (\(families[index])): \(failure)")
                }
            }
        }
        #expect(successes > 0 && failures > 0)
        // The client still works.
        if let good = families.firstIndex(where: \.isGood) {
            let expected = Data(("answer to /r/\(good) " + String(repeating: "x", count: good % 50)).utf8)
            #expect(try await connect.request(TestConnector(server, "/r/\(good)")).value == expected)
        }
    }
}
