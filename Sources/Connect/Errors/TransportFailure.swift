/// A failure below HTTP: the connection, or a response that was not valid HTTP.
///
/// ```swift
/// if case .transport(let failure) = error as? ConnectError {
///     switch failure.kind {
///     case .connectionRefused, .nameResolution: showOffline()
///     case .truncatedResponse, .malformedResponse: report(failure)
///     default: show(failure.message)
///     }
/// }
/// ```
/// Tell failures apart by ``kind``; ``requestSent`` says whether the server may have seen the
/// request, which decides whether one that is not idempotent may be sent again. ``curlCode``
/// and ``message`` are detail, for logs and bug reports.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was.
    ///
    /// New kinds may be added in any release; compare with `==` or in a `switch` with a
    /// `default` case.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A short name, e.g. `connectionRefused`.
        public let name: String

        /// A kind of your own, for transports you write.
        public init(_ name: String) {
            self.name = name
        }

        public var description: String { name }

        /// Nothing listens at the address, or it refused the connection.
        public static let connectionRefused = Kind("connectionRefused")
        /// The host name could not be resolved.
        public static let nameResolution = Kind("nameResolution")
        /// The connection broke while sending or receiving (a reset, a network failure).
        public static let connectionReset = Kind("connectionReset")
        /// The server closed the connection without answering.
        public static let connectionClosed = Kind("connectionClosed")
        /// The HTTP/2 stream of the request was reset, or its framing failed, before the response
        /// was complete. libcurl 7.88 also ends this way an exchange on an h2c connection (see
        /// ``HTTPVersionPolicy/http2WithPriorKnowledge``) whose server answered before reading
        /// the whole request body: the request reached the server and the answer was lost.
        public static let streamReset = Kind("streamReset")
        /// The response ended early: inside its head, its body, or its compressed stream.
        public static let truncatedResponse = Kind("truncatedResponse")
        /// The response is not valid HTTP: its status line, its header lines, its framing or
        /// its compressed body.
        public static let malformedResponse = Kind("malformedResponse")
        /// More redirects than ``ConnectConfiguration/maximumRedirects``, or a loop.
        public static let tooManyRedirects = Kind("tooManyRedirects")
        /// A redirect from https to http, refused (see ``RedirectHandler``).
        public static let insecureRedirect = Kind("insecureRedirect")
        /// The proxy could not be reached or refused the request.
        public static let proxy = Kind("proxy")
        /// The local interface or address connections leave from could not be used; see
        /// ``ConnectionSettings/localInterface``.
        public static let localInterface = Kind("localInterface")
        /// A file the transfer reads or writes failed (a download's destination, an upload's source).
        public static let localFile = Kind("localFile")
        /// The request would go out again (a retry, a redirect that keeps the body, libcurl
        /// resending it on a new connection) but its body is a one-time stream that was
        /// already read; see ``RequestBody/stream(_:count:contentType:)``.
        public static let bodyNotReplayable = Kind("bodyNotReplayable")
        /// A retry was due but the client's ``RetryBudget`` had none left: retries across its
        /// requests had reached their share of the first attempts. The message names the failed
        /// attempt's own error; nothing more was sent.
        public static let retryBudgetExhausted = Kind("retryBudgetExhausted")
        /// The origin's ``CircuitBreaker`` circuit is open after a run of failures, or its probe
        /// is under way: the request failed at once, without a connection.
        /// ``TransportFailure/retryNotBefore`` says when the next probe goes.
        public static let circuitOpen = Kind("circuitOpen")
        /// The server answered a WebSocket opening handshake with 101 but did not complete it:
        /// no `Upgrade: websocket`, the wrong `Sec-WebSocket-Accept`, a subprotocol or an
        /// extension that was not offered (RFC 6455 section 4.1).
        public static let webSocketHandshake = Kind("webSocketHandshake")
        /// The request may be answered only from the cache (``CachePolicy/returnCacheDataDontLoad``,
        /// or `Cache-Control: only-if-cached`) and no stored response answers it; nothing was sent.
        public static let notCached = Kind("notCached")
        /// A ``MockTransport`` has no response registered for the request.
        public static let noMockResponse = Kind("noMockResponse")
        /// Anything else; ``TransportFailure/curlCode`` and the message tell more.
        public static let other = Kind("other")
    }

    /// What kind of failure it was.
    public var kind: Kind
    /// What went wrong, readable.
    public var message: String
    /// Whether any byte of the request had been sent: if so, the server may have acted on it.
    public var requestSent: Bool
    /// libcurl's `CURLcode`, when libcurl reported the failure; `nil` when Connect found it.
    public var curlCode: Int?
    /// When sending the request again is worth it, if the failure knows: for
    /// ``Kind/circuitOpen``, when the next probe goes (`nil` while a probe is under way).
    public var retryNotBefore: ContinuousClock.Instant? {
        get { retryNotBeforeSinceReference.map { Self.referenceInstant.advanced(by: $0) } }
        set { retryNotBeforeSinceReference = newValue.map { Self.referenceInstant.duration(to: $0) } }
    }

    /// ``retryNotBefore``, stored as its distance from ``referenceInstant``: exact both ways.
    /// `ContinuousClock.Instant` is not frozen, so a stored one would leave the failure's
    /// layout unknown until run time, and every value that holds a failure (a transfer's state,
    /// its settlement) would be copied and destroyed through the runtime's witnesses, several
    /// times a request. `Duration` is frozen.
    private var retryNotBeforeSinceReference: Duration?
    /// The instant ``retryNotBefore`` is stored from.
    private static let referenceInstant = ContinuousClock.now

    /// Creates a failure.
    public init(
        kind: Kind, message: String, requestSent: Bool, curlCode: Int? = nil,
        retryNotBefore: ContinuousClock.Instant? = nil
    ) {
        self.kind = kind
        self.message = message
        self.requestSent = requestSent
        self.curlCode = curlCode
        self.retryNotBefore = retryNotBefore
    }

    public var description: String {
        let when = requestSent ? "after the request was sent" : "before the request was sent"
        let code = curlCode.map { ", curl error \($0)" } ?? ""
        return "\(message) (\(kind), \(when)\(code))"
    }
}
