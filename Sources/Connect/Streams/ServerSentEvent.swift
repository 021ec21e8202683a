/// One event of a Server-Sent Events stream (`text/event-stream`).
///
/// ```swift
/// for try await event in connect.events(ChatConnector.completion(prompt)) {
///     if event.event == "done" { break }
///     print(event.data)
/// }
/// ```
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's ID: the last `id` the stream set, at or before this event; sent back as
    /// `Last-Event-ID` when the stream reconnects. `nil` until the stream sets one.
    public var id: String?
    /// The event type: the `event` field, `message` when there is none.
    public var event: String
    /// The `data` lines, joined with line feeds.
    public var data: String
    /// The reconnection time a `retry` field in this event's block asked for, if any.
    public var retry: Duration?

    /// Creates an event.
    public init(id: String? = nil, event: String = "message", data: String, retry: Duration? = nil) {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
    }
}
