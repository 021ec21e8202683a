import ConnectFutures
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Connect {
    /// The Server-Sent Events of the response to `connector`, parsed as they arrive.
    ///
    /// ```swift
    /// for try await event in connect.events(ChatConnector.completion(prompt)) {
    ///     if event.data == "[DONE]" { break }
    ///     answer += try JSONDecoder().decode(Delta.self, from: Data(event.data.utf8)).text
    /// }
    /// ```
    /// Sends `Accept: text/event-stream`. When the connection drops, the stream reconnects after
    /// the server's `retry` (or the policy's delay), sending `Last-Event-ID`, through the same
    /// middleware (adapters and token refresh apply to each reconnection). A 204 ends it; an
    /// error status, or a response of another content type, fails it through the error handler
    /// (``ConnectError/http(_:)`` saying what was expected, when the handler finds no message).
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - reconnection: when to reconnect and when to give up.
    ///   - bufferSize: how many bytes may wait unread before the transfer pauses.
    ///   - maximumLineLength: the longest line (and event) accepted; a longer one fails the
    ///     stream instead of growing memory.
    ///   - debugResponse: logs each request and response, secrets redacted.
    public func events(
        _ connector: any Connector,
        reconnection: ReconnectionPolicy = .default,
        bufferSize: Int = 256 << 10,
        maximumLineLength: Int = 1 << 20,
        debugResponse: Bool = false
    ) -> ServerSentEventStream {
        ServerSentEventStream(
            connect: self, connector: UncheckedConnector(connector), reconnection: reconnection,
            bufferSize: bufferSize, maximumLineLength: maximumLineLength, debugResponse: debugResponse)
    }

    /// The response to `connector`, read line by line as it arrives (JSON Lines, NDJSON, logs).
    ///
    /// ```swift
    /// for try await progress in connect.lines(JobConnector.progress(id)).decodedLines(of: JobProgress.self) {
    ///     print(progress.percent)
    /// }
    /// ```
    /// Lines end at LF (a CR before it is dropped); a last line without one counts. An error
    /// status fails the iteration through the error handler.
    ///
    /// - Parameters:
    ///   - connector: the endpoint and its parameters.
    ///   - bufferSize: how many bytes may wait unread before the transfer pauses.
    ///   - maximumLineLength: the longest line accepted; a longer one fails the iteration with a
    ///     `malformedResponse` transport failure instead of growing memory.
    ///   - debugResponse: logs the request and response, secrets redacted.
    public func lines(
        _ connector: any Connector, bufferSize: Int = 256 << 10, maximumLineLength: Int = 1 << 20,
        debugResponse: Bool = false
    ) -> LineStream {
        LineStream(
            stream: stream(connector, bufferSize: bufferSize, debugResponse: debugResponse, headers: []),
            maximumLineLength: maximumLineLength,
            jsonDecoder: UncheckedDecoder(configuration.jsonDecoder))
    }

    /// ``lines(_:bufferSize:maximumLineLength:debugResponse:)`` with its two sizes in the order
    /// they had before ``events(_:reconnection:bufferSize:maximumLineLength:debugResponse:)``'s.
    @available(*, deprecated, message: "pass bufferSize before maximumLineLength, as events(_:) takes them")
    public func lines(
        _ connector: any Connector, maximumLineLength: Int, bufferSize: Int, debugResponse: Bool = false
    ) -> LineStream {
        lines(connector, bufferSize: bufferSize, maximumLineLength: maximumLineLength, debugResponse: debugResponse)
    }
}
