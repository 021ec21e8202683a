import ConnectFutures

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The accounts of one client's ``RetryBudget``: one for the client, or one for each origin it
/// sent to. Shared by every exchange of the client (see ``SharedClientState``); each count is one
/// short critical section.
final class RetryBudgetLedger: Sendable {
    let budget: RetryBudget
    private let accounts = Locked<[String: RetryBudgetAccount]>([:])
    /// Past this many origins, accounts whose counts have all left the window are dropped.
    private static let originsKeptIdle = 64

    init(budget: RetryBudget) {
        self.budget = budget
    }

    /// Counts the first attempt of a request to `url`.
    func recordFirstAttempt(to url: URL, at now: MonotonicInstant = .now) {
        let key = account(for: url)
        accounts.withLock { accounts in
            if accounts.count > Self.originsKeptIdle, accounts[key] == nil {
                accounts = accounts.filter { !$0.value.isEmpty(at: now) }
            }
            accounts[key, default: RetryBudgetAccount(budget: budget, at: now)].recordFirstAttempt(at: now)
        }
    }

    /// Pays for a retry of a request to `url`, or says why the budget refuses it.
    func payForRetry(to url: URL, at now: MonotonicInstant = .now) -> RetryBudgetAccount.Refusal? {
        let key = account(for: url)
        return accounts.withLock { accounts in
            accounts[key, default: RetryBudgetAccount(budget: budget, at: now)].payForRetry(at: now)
        }
    }

    /// What the budget a request to `url` draws on is called, for messages.
    func name(for url: URL) -> String {
        budget.perOrigin ? "the retry budget of \(account(for: url))" : "the client's retry budget"
    }

    /// The key of the account a request to `url` counts in: its origin, or one for all.
    private func account(for url: URL) -> String {
        budget.perOrigin ? url.originKey : ""
    }
}
