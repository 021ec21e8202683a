internal import ConnectWire
import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The events of a `text/event-stream` response, parsed as they arrive, reconnecting when the
/// connection drops; see ``Connect/events(_:reconnection:bufferSize:maximumLineLength:debugResponse:)``.
///
/// Iterate once. Cancelling the iterating task ends the transfer at once; so does leaving the
/// loop (the iterator's end cancels it). A consumer slower than the server pauses the transfer:
/// at most the buffer's bytes wait.
public struct ServerSentEventStream: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    let connect: Connect
    let connector: UncheckedConnector
    let reconnection: ReconnectionPolicy
    let bufferSize: Int
    let maximumLineLength: Int
    let debugResponse: Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Hands out the events in order, reconnecting as the policy allows.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: ServerSentEventStream
        private var parser: ServerSentEventParser
        /// The connection's stream, cancelled when the iterator goes.
        private let current = CurrentStream()
        private var chunks: ResponseStream.Iterator?
        /// Events parsed from the last chunk, handed out from `nextPending` on.
        private var pending: [ServerSentEvent] = []
        private var nextPending = 0
        private var attemptsWithoutEvent = 0
        private var finished = false

        init(stream: ServerSentEventStream) {
            self.stream = stream
            parser = ServerSentEventParser(maximumLineLength: stream.maximumLineLength)
        }

        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if nextPending < pending.count {
                    defer { nextPending += 1 }
                    return pending[nextPending]
                }
                pending.removeAll(keepingCapacity: true)
                nextPending = 0
                if finished { return nil }
                if chunks == nil {
                    guard try await open() else {
                        finished = true
                        return nil
                    }
                }
                let chunk: Data?
                do {
                    chunk = try await chunks?.next()
                } catch let error as ConnectError {
                    // A connection that broke or outlived its timeout is one a browser reconnects.
                    switch error {
                    case .transport, .timedOut: try await reconnect(after: error)
                    default: throw error
                    }
                    continue
                }
                guard let chunk else {
                    // The server closed the stream: reconnect, as a browser would.
                    try await reconnect(after: nil)
                    continue
                }
                do {
                    try parser.feed(chunk) { pending.append($0) }
                } catch {
                    current.stream?.cancel()
                    throw ConnectError.transport(
                        TransportFailure(
                            kind: .malformedResponse, message: "Malformed event stream: \(error)", requestSent: true))
                }
                if !pending.isEmpty { attemptsWithoutEvent = 0 }
            }
        }

        /// Sends the request (again, with `Last-Event-ID` after the first); `false` when the
        /// server says there is nothing more (204).
        private mutating func open() async throws -> Bool {
            var headers = [HTTPHeader.accept("text/event-stream"), HTTPHeader(name: "Cache-Control", value: "no-store")]
            if let id = parser.lastEventID { headers.append(HTTPHeader(name: "Last-Event-ID", value: id)) }
            let response = stream.connect.stream(
                stream.connector.connector, bufferSize: stream.bufferSize, debugResponse: stream.debugResponse,
                headers: headers)
            current.stream = response
            let head = try await withTaskCancellationHandler {
                try await response.response
            } onCancel: {
                response.cancel()
            }
            if head.statusCode == 204 { return false }
            let type = head.header("Content-Type")?.split(separator: ";").first?.trimmingHTTPSpaces.lowercased()
            guard type == "text/event-stream" else {
                throw await wrongContentType(type, head: head, of: response)
            }
            chunks = response.makeAsyncIterator()
            return true
        }

        /// The error for a response that is not an event stream: what the error handler makes of
        /// it (its body read, up to 64 KiB), with a message that says what was wrong when the
        /// handler found none.
        private func wrongContentType(_ type: String?, head: Response, of response: ResponseStream) async -> any Error {
            var body = Data()
            var chunks = response.makeAsyncIterator()
            while body.count < 64 << 10, let chunk = try? await chunks.next() { body += chunk }
            response.cancel()
            let whole = Response(
                statusCode: head.statusCode, headers: head.headers, body: body, url: head.url,
                httpVersion: head.httpVersion, metrics: head.metrics)
            let message = "expected text/event-stream, got \(type ?? "no Content-Type")"
            let handler = stream.connector.connector.errorHandler ?? stream.connect.errorHandler
            switch handler.handle(failure: FailedExchange(request: Request(url: head.url), response: whole)) {
            case let error as ConnectError:
                if case .http(let failure) = error, failure.message == nil {
                    return ConnectError.http(HTTPFailure(message: message, response: whole))
                }
                return error
            case let error?:
                return error
            case nil:
                return ConnectError.http(HTTPFailure(message: message, response: whole))
            }
        }

        /// Waits as the policy says, then lets the next `next()` open the stream again; throws
        /// when the policy gives up.
        private mutating func reconnect(after error: ConnectError?) async throws {
            chunks = nil
            current.stream = nil
            attemptsWithoutEvent += 1
            guard attemptsWithoutEvent <= stream.reconnection.maximumAttempts else {
                if stream.reconnection.maximumAttempts == 0, error == nil {
                    finished = true
                    return
                }
                throw error
                    ?? ConnectError.transport(
                        TransportFailure(
                            kind: .connectionClosed,
                            message: "The event stream closed \(attemptsWithoutEvent) times in a row without an event",
                            requestSent: true))
            }
            // A new parser for the new connection, keeping what the spec keeps: the last event
            // ID and the reconnection time.
            parser = parser.continuing()
            do {
                try await Task.sleep(
                    for: stream.reconnection.wait(
                        beforeAttempt: attemptsWithoutEvent, serverRetry: parser.reconnectionTime))
            } catch {
                throw ConnectError.cancelled
            }
        }
    }
}

/// The stream of an event stream's current connection: cancelled when the iterator that owns
/// it goes, so that leaving a `for try await` loop early frees the connection.
final class CurrentStream: @unchecked Sendable {
    // @unchecked: touched by the iterator alone, one call at a time (an async iterator is not
    // used from two tasks at once); released on whichever thread drops the iterator.
    var stream: ResponseStream? {
        willSet { if newValue == nil { stream?.cancel() } }
    }

    deinit {
        stream?.cancel()
    }
}
