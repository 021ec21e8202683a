// `Connect.Request` must name Connect's `Request` in an app that has a `Request` of its own
// (Vapor and Hummingbird apps have `Request`, `Response` and `HTTPMethod`). There, `Connect` is
// the class, which hides the module of the same name, and Swift before 6.3 has no other way to
// name the module (`Connect::Request`). So the class names every public type of the module, and
// `.ci/api --check` fails when one is missing.
//
// An alias inside the class cannot name its type directly: there, `Request` is the alias
// itself. The aliases go through `_ConnectModuleTypes`, whose names differ from the types' by a
// leading underscore, so that inside it `Request` is still the module's type.

/// The module's types under names the class ``Connect`` can refer to; use the types themselves.
@_documentation(visibility: internal)
public enum _ConnectModuleTypes {
    /// The module's `AcceptedStatusCodes`.
    public typealias _AcceptedStatusCodes = AcceptedStatusCodes
    /// The module's `AlternativeServices`.
    public typealias _AlternativeServices = AlternativeServices
    /// The module's `AuthenticationSchemes`.
    public typealias _AuthenticationSchemes = AuthenticationSchemes
    /// The module's `AuthorizationToken`.
    public typealias _AuthorizationToken = AuthorizationToken
    /// The module's `AuthorizedConnector`.
    public typealias _AuthorizedConnector = AuthorizedConnector
    /// The module's `BodyCompression`.
    public typealias _BodyCompression = BodyCompression
    /// The module's `CachePolicy`.
    public typealias _CachePolicy = CachePolicy
    /// The module's `CacheStatus`.
    public typealias _CacheStatus = CacheStatus
    /// The module's `CallbackQueueExecutor`.
    public typealias _CallbackQueueExecutor = CallbackQueueExecutor
    /// The module's `CircuitBreaker`.
    public typealias _CircuitBreaker = CircuitBreaker
    /// The module's `ClientCertificate`.
    public typealias _ClientCertificate = ClientCertificate
    /// The module's `CompositeParameters`.
    public typealias _CompositeParameters = CompositeParameters
    /// The module's `ConnectConfiguration`.
    public typealias _ConnectConfiguration = ConnectConfiguration
    /// The module's `ConnectEnvironment`.
    public typealias _ConnectEnvironment = ConnectEnvironment
    /// The module's `ConnectError`.
    public typealias _ConnectError = ConnectError
    /// The module's `ConnectMiddleware`.
    public typealias _ConnectMiddleware = ConnectMiddleware
    /// The module's `ConnectMiddlewareProtocol`.
    public typealias _ConnectMiddlewareProtocol = ConnectMiddlewareProtocol
    /// The module's `ConnectMonitor`.
    public typealias _ConnectMonitor = ConnectMonitor
    /// The module's `ConnectTo`.
    public typealias _ConnectTo = ConnectTo
    /// The module's `ConnectionSettings`.
    public typealias _ConnectionSettings = ConnectionSettings
    /// The module's `Connector`.
    public typealias _Connector = Connector
    /// The module's `CookieStorage`.
    public typealias _CookieStorage = CookieStorage
    /// The module's `Credentials`.
    public typealias _Credentials = Credentials
    /// The module's `CurlTransport`.
    public typealias _CurlTransport = CurlTransport
    /// The module's `DecodedLineStream`.
    public typealias _DecodedLineStream = DecodedLineStream
    /// The module's `DecodingFailure`.
    public typealias _DecodingFailure = DecodingFailure
    /// The module's `DownloadedFile`.
    public typealias _DownloadedFile = DownloadedFile
    /// The module's `EmptyDecodable`.
    public typealias _EmptyDecodable = EmptyDecodable
    /// The module's `EmptyResponse`.
    public typealias _EmptyResponse = EmptyResponse
    /// The module's `EncodedParameters`.
    public typealias _EncodedParameters = EncodedParameters
    /// The module's `EnvironmentProxies`.
    public typealias _EnvironmentProxies = EnvironmentProxies
    /// The module's `ErrorHandler`.
    public typealias _ErrorHandler = ErrorHandler
    /// The module's `ErrorHandlerProtocol`.
    public typealias _ErrorHandlerProtocol = ErrorHandlerProtocol
    /// The module's `FailedAttempt`.
    public typealias _FailedAttempt = FailedAttempt
    /// The module's `FailedExchange`.
    public typealias _FailedExchange = FailedExchange
    /// The module's `FailedResponse`.
    @available(*, deprecated, renamed: "_FailedExchange")
    public typealias _FailedResponse = FailedResponse
    /// The module's `File`.
    public typealias _File = File
    /// The module's `FormPart`.
    public typealias _FormPart = FormPart
    /// The module's `Future`.
    public typealias _Future = Future
    /// The module's `FutureContext`.
    public typealias _FutureContext = FutureContext
    /// The module's `FutureError`.
    public typealias _FutureError = FutureError
    /// The module's `Hedging`.
    public typealias _Hedging = Hedging
    /// The module's `HTTPFailure`.
    public typealias _HTTPFailure = HTTPFailure
    /// The module's `HTTPHeader`.
    public typealias _HTTPHeader = HTTPHeader
    /// The module's `HTTPMethod`.
    public typealias _HTTPMethod = HTTPMethod
    /// The module's `HTTPTask`.
    public typealias _HTTPTask = HTTPTask
    /// The module's `HTTPVersionPolicy`.
    public typealias _HTTPVersionPolicy = HTTPVersionPolicy
    /// The module's `IdempotencyKey`.
    public typealias _IdempotencyKey = IdempotencyKey
    /// The module's `Interceptor`.
    public typealias _Interceptor = Interceptor
    /// The module's `JSONNull`.
    public typealias _JSONNull = JSONNull
    /// The module's `JSONResponseDecoder`.
    public typealias _JSONResponseDecoder = JSONResponseDecoder
    /// The module's `JSONWritable`.
    public typealias _JSONWritable = JSONWritable
    /// The module's `JSONWriter`.
    public typealias _JSONWriter = JSONWriter
    /// The module's `LineStream`.
    public typealias _LineStream = LineStream
    /// The module's `LoggingMonitor`.
    public typealias _LoggingMonitor = LoggingMonitor
    /// The module's `MimeType`.
    public typealias _MimeType = MimeType
    /// The module's `MockResponse`.
    public typealias _MockResponse = MockResponse
    /// The module's `MockTransport`.
    public typealias _MockTransport = MockTransport
    /// The module's `MockWebSocketPeer`.
    public typealias _MockWebSocketPeer = MockWebSocketPeer
    /// The module's `NetrcFile`.
    public typealias _NetrcFile = NetrcFile
    /// The module's `Parameter`.
    public typealias _Parameter = Parameter
    /// The module's `ParametersRepresentable`.
    public typealias _ParametersRepresentable = ParametersRepresentable
    /// The module's `ProgressHandler`.
    public typealias _ProgressHandler = ProgressHandler
    /// The module's `Promise`.
    public typealias _Promise = Promise
    /// The module's `ProxyConfiguration`.
    public typealias _ProxyConfiguration = ProxyConfiguration
    /// The module's `QueryItem`.
    public typealias _QueryItem = QueryItem
    /// The module's `RawDataResponseDecoder`.
    public typealias _RawDataResponseDecoder = RawDataResponseDecoder
    /// The module's `ReconnectionPolicy`.
    public typealias _ReconnectionPolicy = ReconnectionPolicy
    /// The module's `RedirectDecision`.
    public typealias _RedirectDecision = RedirectDecision
    /// The module's `RedirectHandler`.
    public typealias _RedirectHandler = RedirectHandler
    /// The module's `Request`.
    public typealias _Request = Request
    /// The module's `RequestAdapter`.
    public typealias _RequestAdapter = RequestAdapter
    /// The module's `RequestBody`.
    public typealias _RequestBody = RequestBody
    /// The module's `RequestRetrier`.
    public typealias _RequestRetrier = RequestRetrier
    /// The module's `Response`.
    public typealias _Response = Response
    /// The module's `ResponseCache`.
    public typealias _ResponseCache = ResponseCache
    /// The module's `ResponseDecoder`.
    public typealias _ResponseDecoder = ResponseDecoder
    /// The module's `ResponseStream`.
    public typealias _ResponseStream = ResponseStream
    /// The module's `RetryBudget`.
    public typealias _RetryBudget = RetryBudget
    /// The module's `RetryDecision`.
    public typealias _RetryDecision = RetryDecision
    /// The module's `RetryPolicy`.
    public typealias _RetryPolicy = RetryPolicy
    /// The module's `SensitiveHeaders`.
    public typealias _SensitiveHeaders = SensitiveHeaders
    /// The module's `ServerMessage`.
    public typealias _ServerMessage = ServerMessage
    /// The module's `ServerSentEvent`.
    public typealias _ServerSentEvent = ServerSentEvent
    /// The module's `ServerSentEventStream`.
    public typealias _ServerSentEventStream = ServerSentEventStream
    /// The module's `StringResponseDecoder`.
    public typealias _StringResponseDecoder = StringResponseDecoder
    /// The module's `TLSConfiguration`.
    public typealias _TLSConfiguration = TLSConfiguration
    /// The module's `TokenAuthenticator`.
    public typealias _TokenAuthenticator = TokenAuthenticator
    /// The module's `TransferMetrics`.
    public typealias _TransferMetrics = TransferMetrics
    /// The module's `TransferProgress`.
    public typealias _TransferProgress = TransferProgress
    /// The module's `Transport`.
    public typealias _Transport = Transport
    /// The module's `TransportFailure`.
    public typealias _TransportFailure = TransportFailure
    /// The module's `WebSocket`.
    public typealias _WebSocket = WebSocket
    /// The module's `WebSocketCompression`.
    public typealias _WebSocketCompression = WebSocketCompression
    /// The module's `WebSocketCompressionOffer`.
    public typealias _WebSocketCompressionOffer = WebSocketCompressionOffer
    /// The module's `WebSocketEnding`.
    public typealias _WebSocketEnding = WebSocketEnding
    /// The module's `WebSocketError`.
    public typealias _WebSocketError = WebSocketError
    /// The module's `WebSocketMessage`.
    public typealias _WebSocketMessage = WebSocketMessage
    /// The module's `WebSocketOptions`.
    public typealias _WebSocketOptions = WebSocketOptions
}

extension Connect {
    /// ``AcceptedStatusCodes``, named through the class for an app that has a `AcceptedStatusCodes` of its own.
    public typealias AcceptedStatusCodes = _ConnectModuleTypes._AcceptedStatusCodes
    /// ``AlternativeServices``, named through the class for an app that has a `AlternativeServices` of its own.
    public typealias AlternativeServices = _ConnectModuleTypes._AlternativeServices
    /// ``AuthenticationSchemes``, named through the class for an app that has a `AuthenticationSchemes` of its own.
    public typealias AuthenticationSchemes = _ConnectModuleTypes._AuthenticationSchemes
    /// ``AuthorizationToken``, named through the class for an app that has a `AuthorizationToken` of its own.
    public typealias AuthorizationToken = _ConnectModuleTypes._AuthorizationToken
    /// ``AuthorizedConnector``, named through the class for an app that has a `AuthorizedConnector` of its own.
    public typealias AuthorizedConnector = _ConnectModuleTypes._AuthorizedConnector
    /// ``BodyCompression``, named through the class for an app that has a `BodyCompression` of its own.
    public typealias BodyCompression = _ConnectModuleTypes._BodyCompression
    /// ``CachePolicy``, named through the class for an app that has a `CachePolicy` of its own.
    public typealias CachePolicy = _ConnectModuleTypes._CachePolicy
    /// ``CacheStatus``, named through the class for an app that has a `CacheStatus` of its own.
    public typealias CacheStatus = _ConnectModuleTypes._CacheStatus
    /// ``CallbackQueueExecutor``, named through the class for an app that has a `CallbackQueueExecutor` of its own.
    public typealias CallbackQueueExecutor = _ConnectModuleTypes._CallbackQueueExecutor
    /// ``CircuitBreaker``, named through the class for an app that has a `CircuitBreaker` of its own.
    public typealias CircuitBreaker = _ConnectModuleTypes._CircuitBreaker
    /// ``ClientCertificate``, named through the class for an app that has a `ClientCertificate` of its own.
    public typealias ClientCertificate = _ConnectModuleTypes._ClientCertificate
    /// ``CompositeParameters``, named through the class for an app that has a `CompositeParameters` of its own.
    public typealias CompositeParameters = _ConnectModuleTypes._CompositeParameters
    /// ``ConnectConfiguration``, named through the class for an app that has a `ConnectConfiguration` of its own.
    public typealias ConnectConfiguration = _ConnectModuleTypes._ConnectConfiguration
    /// ``ConnectEnvironment``, named through the class for an app that has a `ConnectEnvironment` of its own.
    public typealias ConnectEnvironment = _ConnectModuleTypes._ConnectEnvironment
    /// ``ConnectError``, named through the class for an app that has a `ConnectError` of its own.
    public typealias ConnectError = _ConnectModuleTypes._ConnectError
    /// ``ConnectMiddleware``, named through the class for an app that has a `ConnectMiddleware` of its own.
    public typealias ConnectMiddleware = _ConnectModuleTypes._ConnectMiddleware
    /// ``ConnectMiddlewareProtocol``, named through the class for an app that has a `ConnectMiddlewareProtocol` of its own.
    public typealias ConnectMiddlewareProtocol = _ConnectModuleTypes._ConnectMiddlewareProtocol
    /// ``ConnectMonitor``, named through the class for an app that has a `ConnectMonitor` of its own.
    public typealias ConnectMonitor = _ConnectModuleTypes._ConnectMonitor
    /// ``ConnectTo``, named through the class for an app that has a `ConnectTo` of its own.
    public typealias ConnectTo = _ConnectModuleTypes._ConnectTo
    /// ``ConnectionSettings``, named through the class for an app that has a `ConnectionSettings` of its own.
    public typealias ConnectionSettings = _ConnectModuleTypes._ConnectionSettings
    /// ``Connector``, named through the class for an app that has a `Connector` of its own.
    public typealias Connector = _ConnectModuleTypes._Connector
    /// ``CookieStorage``, named through the class for an app that has a `CookieStorage` of its own.
    public typealias CookieStorage = _ConnectModuleTypes._CookieStorage
    /// ``Credentials``, named through the class for an app that has a `Credentials` of its own.
    public typealias Credentials = _ConnectModuleTypes._Credentials
    /// ``CurlTransport``, named through the class for an app that has a `CurlTransport` of its own.
    public typealias CurlTransport = _ConnectModuleTypes._CurlTransport
    /// ``DecodedLineStream``, named through the class for an app that has a `DecodedLineStream` of its own.
    public typealias DecodedLineStream = _ConnectModuleTypes._DecodedLineStream
    /// ``DecodingFailure``, named through the class for an app that has a `DecodingFailure` of its own.
    public typealias DecodingFailure = _ConnectModuleTypes._DecodingFailure
    /// ``DownloadedFile``, named through the class for an app that has a `DownloadedFile` of its own.
    public typealias DownloadedFile = _ConnectModuleTypes._DownloadedFile
    /// ``EmptyDecodable``, named through the class for an app that has a `EmptyDecodable` of its own.
    public typealias EmptyDecodable = _ConnectModuleTypes._EmptyDecodable
    /// ``EmptyResponse``, named through the class for an app that has a `EmptyResponse` of its own.
    public typealias EmptyResponse = _ConnectModuleTypes._EmptyResponse
    /// ``EncodedParameters``, named through the class for an app that has a `EncodedParameters` of its own.
    public typealias EncodedParameters = _ConnectModuleTypes._EncodedParameters
    /// ``EnvironmentProxies``, named through the class for an app that has a `EnvironmentProxies` of its own.
    public typealias EnvironmentProxies = _ConnectModuleTypes._EnvironmentProxies
    /// ``ErrorHandler``, named through the class for an app that has a `ErrorHandler` of its own.
    public typealias ErrorHandler = _ConnectModuleTypes._ErrorHandler
    /// ``ErrorHandlerProtocol``, named through the class for an app that has a `ErrorHandlerProtocol` of its own.
    public typealias ErrorHandlerProtocol = _ConnectModuleTypes._ErrorHandlerProtocol
    /// ``FailedAttempt``, named through the class for an app that has a `FailedAttempt` of its own.
    public typealias FailedAttempt = _ConnectModuleTypes._FailedAttempt
    /// ``FailedExchange``, named through the class for an app that has a `FailedExchange` of its own.
    public typealias FailedExchange = _ConnectModuleTypes._FailedExchange
    /// ``FailedResponse``, named through the class for an app that has a `FailedResponse` of its own.
    @available(*, deprecated, renamed: "FailedExchange")
    public typealias FailedResponse = _ConnectModuleTypes._FailedResponse
    /// ``File``, named through the class for an app that has a `File` of its own.
    public typealias File = _ConnectModuleTypes._File
    /// ``FormPart``, named through the class for an app that has a `FormPart` of its own.
    public typealias FormPart = _ConnectModuleTypes._FormPart
    /// ``Future``, named through the class for an app that has a `Future` of its own.
    public typealias Future = _ConnectModuleTypes._Future
    /// ``FutureContext``, named through the class for an app that has a `FutureContext` of its own.
    public typealias FutureContext = _ConnectModuleTypes._FutureContext
    /// ``FutureError``, named through the class for an app that has a `FutureError` of its own.
    public typealias FutureError = _ConnectModuleTypes._FutureError
    /// ``Hedging``, named through the class for an app that has a `Hedging` of its own.
    public typealias Hedging = _ConnectModuleTypes._Hedging
    /// ``HTTPFailure``, named through the class for an app that has a `HTTPFailure` of its own.
    public typealias HTTPFailure = _ConnectModuleTypes._HTTPFailure
    /// ``HTTPHeader``, named through the class for an app that has a `HTTPHeader` of its own.
    public typealias HTTPHeader = _ConnectModuleTypes._HTTPHeader
    /// ``HTTPMethod``, named through the class for an app that has a `HTTPMethod` of its own.
    public typealias HTTPMethod = _ConnectModuleTypes._HTTPMethod
    /// ``HTTPTask``, named through the class for an app that has a `HTTPTask` of its own.
    public typealias HTTPTask = _ConnectModuleTypes._HTTPTask
    /// ``HTTPVersionPolicy``, named through the class for an app that has a `HTTPVersionPolicy` of its own.
    public typealias HTTPVersionPolicy = _ConnectModuleTypes._HTTPVersionPolicy
    /// ``IdempotencyKey``, named through the class for an app that has a `IdempotencyKey` of its own.
    public typealias IdempotencyKey = _ConnectModuleTypes._IdempotencyKey
    /// ``Interceptor``, named through the class for an app that has a `Interceptor` of its own.
    public typealias Interceptor = _ConnectModuleTypes._Interceptor
    /// ``JSONNull``, named through the class for an app that has a `JSONNull` of its own.
    public typealias JSONNull = _ConnectModuleTypes._JSONNull
    /// ``JSONResponseDecoder``, named through the class for an app that has a `JSONResponseDecoder` of its own.
    public typealias JSONResponseDecoder = _ConnectModuleTypes._JSONResponseDecoder
    /// ``JSONWritable``, named through the class for an app that has a `JSONWritable` of its own.
    public typealias JSONWritable = _ConnectModuleTypes._JSONWritable
    /// ``JSONWriter``, named through the class for an app that has a `JSONWriter` of its own.
    public typealias JSONWriter = _ConnectModuleTypes._JSONWriter
    /// ``LineStream``, named through the class for an app that has a `LineStream` of its own.
    public typealias LineStream = _ConnectModuleTypes._LineStream
    /// ``LoggingMonitor``, named through the class for an app that has a `LoggingMonitor` of its own.
    public typealias LoggingMonitor = _ConnectModuleTypes._LoggingMonitor
    /// ``MimeType``, named through the class for an app that has a `MimeType` of its own.
    public typealias MimeType = _ConnectModuleTypes._MimeType
    /// ``MockResponse``, named through the class for an app that has a `MockResponse` of its own.
    public typealias MockResponse = _ConnectModuleTypes._MockResponse
    /// ``MockTransport``, named through the class for an app that has a `MockTransport` of its own.
    public typealias MockTransport = _ConnectModuleTypes._MockTransport
    /// ``MockWebSocketPeer``, named through the class for an app that has a `MockWebSocketPeer` of its own.
    public typealias MockWebSocketPeer = _ConnectModuleTypes._MockWebSocketPeer
    /// ``NetrcFile``, named through the class for an app that has a `NetrcFile` of its own.
    public typealias NetrcFile = _ConnectModuleTypes._NetrcFile
    /// ``Parameter``, named through the class for an app that has a `Parameter` of its own.
    public typealias Parameter = _ConnectModuleTypes._Parameter
    /// ``ParametersRepresentable``, named through the class for an app that has a `ParametersRepresentable` of its own.
    public typealias ParametersRepresentable = _ConnectModuleTypes._ParametersRepresentable
    /// ``ProgressHandler``, named through the class for an app that has a `ProgressHandler` of its own.
    public typealias ProgressHandler = _ConnectModuleTypes._ProgressHandler
    /// ``Promise``, named through the class for an app that has a `Promise` of its own.
    public typealias Promise = _ConnectModuleTypes._Promise
    /// ``ProxyConfiguration``, named through the class for an app that has a `ProxyConfiguration` of its own.
    public typealias ProxyConfiguration = _ConnectModuleTypes._ProxyConfiguration
    /// ``QueryItem``, named through the class for an app that has a `QueryItem` of its own.
    public typealias QueryItem = _ConnectModuleTypes._QueryItem
    /// ``RawDataResponseDecoder``, named through the class for an app that has a `RawDataResponseDecoder` of its own.
    public typealias RawDataResponseDecoder = _ConnectModuleTypes._RawDataResponseDecoder
    /// ``ReconnectionPolicy``, named through the class for an app that has a `ReconnectionPolicy` of its own.
    public typealias ReconnectionPolicy = _ConnectModuleTypes._ReconnectionPolicy
    /// ``RedirectDecision``, named through the class for an app that has a `RedirectDecision` of its own.
    public typealias RedirectDecision = _ConnectModuleTypes._RedirectDecision
    /// ``RedirectHandler``, named through the class for an app that has a `RedirectHandler` of its own.
    public typealias RedirectHandler = _ConnectModuleTypes._RedirectHandler
    /// ``Request``, named through the class for an app that has a `Request` of its own.
    public typealias Request = _ConnectModuleTypes._Request
    /// ``RequestAdapter``, named through the class for an app that has a `RequestAdapter` of its own.
    public typealias RequestAdapter = _ConnectModuleTypes._RequestAdapter
    /// ``RequestBody``, named through the class for an app that has a `RequestBody` of its own.
    public typealias RequestBody = _ConnectModuleTypes._RequestBody
    /// ``RequestRetrier``, named through the class for an app that has a `RequestRetrier` of its own.
    public typealias RequestRetrier = _ConnectModuleTypes._RequestRetrier
    /// ``Response``, named through the class for an app that has a `Response` of its own.
    public typealias Response = _ConnectModuleTypes._Response
    /// ``ResponseCache``, named through the class for an app that has a `ResponseCache` of its own.
    public typealias ResponseCache = _ConnectModuleTypes._ResponseCache
    /// ``ResponseDecoder``, named through the class for an app that has a `ResponseDecoder` of its own.
    public typealias ResponseDecoder = _ConnectModuleTypes._ResponseDecoder
    /// ``ResponseStream``, named through the class for an app that has a `ResponseStream` of its own.
    public typealias ResponseStream = _ConnectModuleTypes._ResponseStream
    /// ``RetryBudget``, named through the class for an app that has a `RetryBudget` of its own.
    public typealias RetryBudget = _ConnectModuleTypes._RetryBudget
    /// ``RetryDecision``, named through the class for an app that has a `RetryDecision` of its own.
    public typealias RetryDecision = _ConnectModuleTypes._RetryDecision
    /// ``RetryPolicy``, named through the class for an app that has a `RetryPolicy` of its own.
    public typealias RetryPolicy = _ConnectModuleTypes._RetryPolicy
    /// ``SensitiveHeaders``, named through the class for an app that has a `SensitiveHeaders` of its own.
    public typealias SensitiveHeaders = _ConnectModuleTypes._SensitiveHeaders
    /// ``ServerMessage``, named through the class for an app that has a `ServerMessage` of its own.
    public typealias ServerMessage = _ConnectModuleTypes._ServerMessage
    /// ``ServerSentEvent``, named through the class for an app that has a `ServerSentEvent` of its own.
    public typealias ServerSentEvent = _ConnectModuleTypes._ServerSentEvent
    /// ``ServerSentEventStream``, named through the class for an app that has a `ServerSentEventStream` of its own.
    public typealias ServerSentEventStream = _ConnectModuleTypes._ServerSentEventStream
    /// ``StringResponseDecoder``, named through the class for an app that has a `StringResponseDecoder` of its own.
    public typealias StringResponseDecoder = _ConnectModuleTypes._StringResponseDecoder
    /// ``TLSConfiguration``, named through the class for an app that has a `TLSConfiguration` of its own.
    public typealias TLSConfiguration = _ConnectModuleTypes._TLSConfiguration
    /// ``TokenAuthenticator``, named through the class for an app that has a `TokenAuthenticator` of its own.
    public typealias TokenAuthenticator = _ConnectModuleTypes._TokenAuthenticator
    /// ``TransferMetrics``, named through the class for an app that has a `TransferMetrics` of its own.
    public typealias TransferMetrics = _ConnectModuleTypes._TransferMetrics
    /// ``TransferProgress``, named through the class for an app that has a `TransferProgress` of its own.
    public typealias TransferProgress = _ConnectModuleTypes._TransferProgress
    /// ``Transport``, named through the class for an app that has a `Transport` of its own.
    public typealias Transport = _ConnectModuleTypes._Transport
    /// ``TransportFailure``, named through the class for an app that has a `TransportFailure` of its own.
    public typealias TransportFailure = _ConnectModuleTypes._TransportFailure
    /// ``WebSocket``, named through the class for an app that has a `WebSocket` of its own.
    public typealias WebSocket = _ConnectModuleTypes._WebSocket
    /// ``WebSocketCompression``, named through the class for an app that has a `WebSocketCompression` of its own.
    public typealias WebSocketCompression = _ConnectModuleTypes._WebSocketCompression
    /// ``WebSocketCompressionOffer``, named through the class for an app that has a `WebSocketCompressionOffer` of its own.
    public typealias WebSocketCompressionOffer = _ConnectModuleTypes._WebSocketCompressionOffer
    /// ``WebSocketEnding``, named through the class for an app that has a `WebSocketEnding` of its own.
    public typealias WebSocketEnding = _ConnectModuleTypes._WebSocketEnding
    /// ``WebSocketError``, named through the class for an app that has a `WebSocketError` of its own.
    public typealias WebSocketError = _ConnectModuleTypes._WebSocketError
    /// ``WebSocketMessage``, named through the class for an app that has a `WebSocketMessage` of its own.
    public typealias WebSocketMessage = _ConnectModuleTypes._WebSocketMessage
    /// ``WebSocketOptions``, named through the class for an app that has a `WebSocketOptions` of its own.
    public typealias WebSocketOptions = _ConnectModuleTypes._WebSocketOptions
}
