import ConnectFutures

extension Duration {
    /// Whole seconds and milliseconds for messages, as "2s 500ms", "3s" or "250ms" (rounded
    /// down to the millisecond; "0ms" for less than one).
    var secondsAndMilliseconds: String {
        let milliseconds = clampedNanoseconds / 1_000_000
        let (seconds, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        switch (seconds, rest) {
        case (0, _): return "\(rest)ms"
        case (_, 0): return "\(seconds)s"
        default: return "\(seconds)s \(rest)ms"
        }
    }

    /// Milliseconds with one decimal, rounded to the nearest tenth: "12.3".
    var millisecondsToOneDecimal: String {
        let tenths = (clampedNanoseconds + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10)"
    }
}
