import ConnectFutures

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one client's ``Hedging`` measured: the time each origin's attempts took to answer, from
/// which a percentile delay is worked out. Shared by every exchange of the client (see
/// ``SharedClientState``).
final class HedgingLedger: Sendable {
    let hedging: Hedging
    private let latencies = Locked<[String: LatencySamples]>([:])
    /// Past this many origins, the samples start again: a client that talks to many origins
    /// keeps no unbounded table.
    private static let originsKept = 256

    init(hedging: Hedging) {
        self.hedging = hedging
    }

    /// How long after the last attempt to `url` started the next one goes.
    func delay(for url: URL) -> Duration {
        switch hedging.delay.rule {
        case .fixed(let delay):
            return delay
        case .percentile(let quantile, let atLeast, let untilMeasured):
            let measured = latencies.withLock { $0[url.originKey]?.value(at: quantile) }
            return max(measured ?? untilMeasured, atLeast)
        }
    }

    /// Records the time an attempt to `url` took to answer, when the delay is a percentile.
    func record(_ latency: Duration, for url: URL) {
        guard case .percentile = hedging.delay.rule else { return }
        let origin = url.originKey
        latencies.withLock { latencies in
            if latencies.count >= Self.originsKept, latencies[origin] == nil { latencies = [:] }
            latencies[origin, default: LatencySamples()].record(latency)
        }
    }
}
