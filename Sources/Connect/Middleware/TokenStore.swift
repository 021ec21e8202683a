import ConnectFutures

/// The token and the one refresh in flight, if any.
actor TokenStore {
    private(set) var token: String?
    private var refreshing: Task<String, any Error>?
    /// The last refresh's failure, for the token it tried to replace.
    private var failedRefresh: (token: String?, error: any Error)?
    private let refresh: @Sendable () async throws -> String

    init(token: String?, refresh: @escaping @Sendable () async throws -> String) {
        self.token = token
        self.refresh = refresh
    }

    /// The token to send; waits for a refresh in flight.
    func currentToken() async throws -> String? {
        if let refreshing { return try await waitCancellably(for: refreshing) }
        return token
    }

    /// Starts a refresh, or joins the one in flight; does nothing if the token the failed
    /// request carried (`sentHeader`) has already been replaced.
    func refresh(unlessReplacing sentHeader: String?, header: (String) -> HTTPHeader) async throws {
        if let refreshing {
            _ = try await waitCancellably(for: refreshing)
            return
        }
        if let token, sentHeader != header(token).value { return }
        if let failedRefresh, failedRefresh.token == token { throw failedRefresh.error }
        let replaced = token
        // Runs on this actor (it inherits the isolation), so it stores the token directly.
        let task = Task { [refresh] in
            do {
                let newToken = try await TokenAuthenticator.$refreshInProgress.withValue(ObjectIdentifier(self)) {
                    try await refresh()
                }
                // Stored before the task finishes, so every waiter sees the new token at once.
                self.finishRefresh(with: newToken)
                return newToken
            } catch {
                self.finishRefresh(with: nil, failure: (replaced, error))
                throw error
            }
        }
        refreshing = task
        _ = try await waitCancellably(for: task)
    }

    private func finishRefresh(with newToken: String?, failure: (token: String?, error: any Error)? = nil) {
        if let newToken { token = newToken }
        failedRefresh = failure
        refreshing = nil
    }

    func replace(with newToken: String?) {
        token = newToken
        failedRefresh = nil
    }
}
