/// One failed attempt, as a ``RequestRetrier`` sees it.
public struct FailedAttempt: Sendable {
    /// The request as it was sent (after adapters and interceptors).
    public let request: Request
    /// What went wrong: a ``ConnectError`` or the error handler's error.
    public let error: any Error
    /// The response, when the server answered.
    public let response: Response?
    /// Which attempt failed: 1 for the first.
    public let number: Int
    /// Time since the first attempt started.
    public let elapsed: Duration

    /// Creates a failed attempt (for testing retriers).
    public init(request: Request, error: any Error, response: Response?, number: Int, elapsed: Duration) {
        self.request = request
        self.error = error
        self.response = response
        self.number = number
        self.elapsed = elapsed
    }
}
