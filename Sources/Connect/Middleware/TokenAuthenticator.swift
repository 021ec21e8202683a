import ConnectFutures

/// Adds a token to every request and, on a 401, refreshes it once for everyone.
///
/// ```swift
/// let authenticator = TokenAuthenticator(token: storedToken) {
///     try await authService.refreshAccessToken()          // runs once, however many requests hit 401
/// }
/// let connect = Connect(middleware: ConnectMiddleware(adapters: [authenticator]))   // adapts and retries
/// ```
/// When requests fail with 401 at the same time, the first starts a refresh and the others wait
/// for that same refresh; requests started meanwhile wait for it before they are sent. Each then
/// retries with the new token. A request whose token was already replaced retries without a new
/// refresh. If the refresh fails, every waiting request fails with the refresh's error, and so
/// does every later 401 that carries the same token, without another refresh (a revoked refresh
/// token must not be hammered), until ``setToken(_:)`` gives a new one, e.g. after signing in
/// again. A request is refreshed for at most ``maximumRefreshes`` times, so nothing loops forever.
/// Cancelling a waiting request ends its wait at once; the refresh goes on for the others.
///
/// The refresh may call the token endpoint through the same `Connect`: requests made from the
/// `refresh` closure (in its task, or tasks it starts as child or unstructured tasks) pass this
/// authenticator untouched, without waiting for the refresh they are part of, and a 401 among
/// them does not start another refresh. A request whose wait for a refresh outlasts its timeout
/// fails with ``ConnectError/timedOut(_:)``, so nothing waits forever, whatever the refresh does.
public final class TokenAuthenticator: RequestAdapter, RequestRetrier {
    /// How many times one request may trigger or wait for a refresh.
    public let maximumRefreshes: Int
    private let store: TokenStore
    private let header: @Sendable (String) -> HTTPHeader

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - token: the current token; `nil` sends requests without one until the first refresh.
    ///   - maximumRefreshes: per request.
    ///   - header: how a token is sent; `Authorization: Bearer <token>` by default.
    ///   - refresh: fetches a new token; called once per round of 401s.
    public init(
        token: String?,
        maximumRefreshes: Int = 1,
        header: @escaping @Sendable (String) -> HTTPHeader = { .authorization(bearerToken: $0) },
        refresh: @escaping @Sendable () async throws -> String
    ) {
        self.maximumRefreshes = maximumRefreshes
        self.header = header
        store = TokenStore(token: token, refresh: refresh)
    }

    /// The token requests are sent with now.
    public var token: String? {
        get async { await store.token }
    }

    /// Replaces the token, e.g. after the user signs in again; forgets a failed refresh.
    public func setToken(_ token: String?) async {
        await store.replace(with: token)
    }

    /// The store whose refresh the current task is running, if any: requests the refresh makes
    /// must not wait for it.
    @TaskLocal static var refreshInProgress: ObjectIdentifier?

    private var isInsideOwnRefresh: Bool { Self.refreshInProgress == ObjectIdentifier(store) }

    public func adapt(_ request: Request) async throws -> Request {
        if isInsideOwnRefresh { return request }
        guard let token = try await store.currentToken() else { return request }
        var request = request
        request.setHeader(header(token))
        return request
    }

    public func retry(_ attempt: FailedAttempt) async -> RetryDecision {
        guard !isInsideOwnRefresh, attempt.response?.statusCode == 401, attempt.number <= maximumRefreshes else {
            return .doNotRetry
        }
        let sentHeader = attempt.request.headers.value(for: header("").name)
        do {
            try await store.refresh(unlessReplacing: sentHeader, header: header)
            return .retry
        } catch is CancellationError {
            return .fail(ConnectError.cancelled)
        } catch {
            return .fail(error)
        }
    }
}

/// Waits for `task`, but stops waiting (with `CancellationError`) as soon as the waiting task is
/// cancelled; `task` itself goes on for whoever else waits.
func waitCancellably<Value: Sendable>(for task: Task<Value, any Error>) async throws -> Value {
    let waiter = Promise<Value>()
    Task {
        do { waiter.succeed(try await task.value) } catch { waiter.fail(error) }
    }
    // Awaiting a future is cancellable: cancelling this task fails `waiter` at once.
    return try await waiter.future.value
}
