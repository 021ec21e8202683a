/// Receives a transfer's progress on the callback queue, in order, at most about ten times a
/// second, and always once more with the final figures before the transfer's future completes.
public struct ProgressHandler: Sendable {
    let report: @Sendable (TransferProgress) -> Void
    let finish: @Sendable () -> Void

    /// Calls `report` with each update.
    public init(_ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.report = report
        finish = {}
    }

    init(report: @escaping @Sendable (TransferProgress) -> Void, finish: @escaping @Sendable () -> Void) {
        self.report = report
        self.finish = finish
    }
}
