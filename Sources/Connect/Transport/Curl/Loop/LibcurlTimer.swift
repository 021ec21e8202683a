/// libcurl's timer for a multi handle, as its timer callback (`CURLMOPT_TIMERFUNCTION`) sets it:
/// stopped, due at once, or due at an instant.
///
/// libcurl asks for a timer of 0 ms whenever a transfer is to run at once, which is at least
/// once a request (it was added, or its connection became free): that one is kept apart from an
/// instant so that neither setting it nor finding it due reads the clock.
enum LibcurlTimer: Equatable {
    case stopped
    case dueAtOnce
    case due(at: MonotonicInstant)

    /// The timer libcurl's callback asks for with `milliseconds`: -1 stops it, 0 is at once.
    init(milliseconds: Int, now: @autoclosure () -> MonotonicInstant = .now) {
        switch milliseconds {
        case ..<0: self = .stopped
        case 0: self = .dueAtOnce
        default: self = .due(at: now().advanced(byMilliseconds: milliseconds))
        }
    }

    /// Whether the timer has run out, at `now` if it has to look.
    func isDue(at now: @autoclosure () -> MonotonicInstant = .now) -> Bool {
        switch self {
        case .stopped: false
        case .dueAtOnce: true
        case .due(let deadline): !(now() < deadline)
        }
    }

    /// How long a wait may last from `now` for the timer, in milliseconds rounded up; `nil`
    /// when it is stopped.
    func millisecondsToWait(from now: MonotonicInstant) -> Int? {
        switch self {
        case .stopped: nil
        case .dueAtOnce: 0
        case .due(let deadline): now.millisecondsToWait(until: deadline)
        }
    }
}
