#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The line every HTTP benchmark client prints, C and Swift alike: requests, seconds,
/// requests/s, CPU microseconds per request, failures.
public enum BenchmarkReport: Sendable {
    /// Runs `requests(warmUp)` to open the connections, then `requests(total)` timed; prints the
    /// report line and exits, with status 1 if any request failed. `requests` returns the failures.
    public static func measure(total: Int, warmUp: Int, _ requests: (Int) -> Int) -> Never {
        _ = requests(warmUp)
        let cpuBefore = cpuSeconds()
        let start = ContinuousClock.now
        let failures = requests(total)
        let elapsed = ContinuousClock.now - start
        print(line(total: total, elapsed: elapsed, cpu: cpuSeconds() - cpuBefore, failures: failures))
        exit(failures == 0 ? 0 : 1)
    }

    /// The process's user and system CPU time so far, in seconds.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// The report for `total` requests that took `elapsed` and `cpu` seconds of CPU, as the C
    /// clients' `printf("%ld %.4f %.1f %.2f %ld\n", ...)` writes it.
    public static func line(total: Int, elapsed: Duration, cpu: Double, failures: Int) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return
            "\(total) \(fixed(seconds, digits: 4)) \(fixed(Double(total) / seconds, digits: 1)) \(fixed(cpu / Double(total) * 1e6, digits: 2)) \(failures)"
    }

    /// `value` with `digits` decimals, rounded to the nearest; what `%.Nf` prints for the
    /// non-negative figures here.
    public static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((value * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }
}
