#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing

@testable import Connect

/// What the loop's epoll set holds for a descriptor and the change each event makes: an idle
/// connection's socket stays registered for reading, everything else leaves the set as libcurl
/// forgets it, and a registration that may have closed under its number is changed with a
/// fallback to adding it.
@Suite("Epoll registrations")
struct EpollRegistrationTests {
    /// An event on one descriptor.
    enum Event: Sendable, CustomStringConvertible {
        case opened
        case established
        case closing
        case watch(Int16)
        case remove
        case readyWithoutInterest

        var description: String {
            switch self {
            case .opened: "opened"
            case .established: "established"
            case .closing: "closing"
            case .watch(let events): "watch \(events)"
            case .remove: "remove"
            case .readyWithoutInterest: "ready without interest"
            }
        }
    }

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var events: [Event]
        /// The change each event makes, in order.
        var changes: [EpollRegistration.Change]
        /// The events registered afterwards.
        var registered: Int16?
        var description: String { name }
    }

    static let read = Int16(POLLIN)
    static let write = Int16(POLLOUT)
    static let both = Int16(POLLIN | POLLOUT)

    static let rows: [Row] = [
        Row(
            name: "a new connection is added, changed, and kept for reading when its transfer ends",
            events: [.opened, .watch(write), .established, .watch(read), .remove],
            changes: [
                .none, .watch(events: write, believedRegistered: false), .none,
                .watch(events: read, believedRegistered: true), .none
            ],
            registered: read),
        Row(
            name: "its next request waits for reading at no change",
            events: [.opened, .established, .watch(read), .remove, .watch(read), .remove, .watch(read)],
            changes: [.none, .none, .watch(events: read, believedRegistered: false), .none, .none, .none, .none],
            registered: read),
        Row(
            name: "a kept connection asked to write is changed",
            events: [.opened, .established, .watch(read), .remove, .watch(both)],
            changes: [
                .none, .none, .watch(events: read, believedRegistered: false), .none,
                .watch(events: both, believedRegistered: true)
            ],
            registered: both),
        Row(
            name: "a connection forgotten while registered for writing leaves the set",
            events: [.opened, .established, .watch(both), .remove],
            changes: [.none, .none, .watch(events: both, believedRegistered: false), .forget],
            registered: nil),
        Row(
            name: "a kept connection leaves the set before it closes",
            events: [.opened, .established, .watch(read), .remove, .closing],
            changes: [.none, .none, .watch(events: read, believedRegistered: false), .none, .forget],
            registered: nil),
        Row(
            name: "a connection never registered closes with no change",
            events: [.opened, .closing],
            changes: [.none, .none],
            registered: nil),
        Row(
            name: "an idle connection found ready leaves the set, and is added again for its next request",
            events: [
                .opened, .established, .watch(read), .remove, .readyWithoutInterest, .readyWithoutInterest, .watch(read)
            ],
            changes: [
                .none, .none, .watch(events: read, believedRegistered: false), .none, .forget, .none,
                .watch(events: read, believedRegistered: false)
            ],
            registered: read),
        Row(
            name: "a descriptor that is no connection leaves the set as libcurl forgets it",
            events: [.watch(read), .remove, .watch(read)],
            changes: [
                .watch(events: read, believedRegistered: false), .forget,
                .watch(events: read, believedRegistered: false)
            ],
            registered: read),
        Row(
            name: "a descriptor that is no connection is changed each time, as it may have closed under its number",
            events: [.watch(read), .watch(read)],
            changes: [.watch(events: read, believedRegistered: false), .watch(events: read, believedRegistered: true)],
            registered: read),
        Row(
            name: "a connection opened on a number still believed registered starts in no set",
            events: [.watch(read), .opened, .watch(read)],
            changes: [
                .watch(events: read, believedRegistered: false), .none, .watch(events: read, believedRegistered: false)
            ],
            registered: read),
        Row(
            name: "after a connection closed, its number is no connection until another opens",
            events: [.opened, .established, .watch(read), .closing, .watch(read), .remove],
            changes: [
                .none, .none, .watch(events: read, believedRegistered: false), .forget,
                .watch(events: read, believedRegistered: false), .forget
            ],
            registered: nil),
        Row(
            name: "libcurl watching for nothing keeps the socket registered with no events",
            events: [.opened, .established, .watch(0), .watch(0)],
            changes: [.none, .none, .watch(events: 0, believedRegistered: false), .none],
            registered: 0),
        Row(
            name: "a socket no exchange went out on leaves the set as libcurl forgets it, as it may close without word",
            events: [.opened, .watch(write), .remove],
            changes: [.none, .watch(events: write, believedRegistered: false), .forget],
            registered: nil),
        Row(
            name: "a socket closed without word while connecting: what takes its number is changed, not assumed",
            events: [.opened, .watch(write), .watch(write)],
            changes: [
                .none, .watch(events: write, believedRegistered: false), .watch(events: write, believedRegistered: true)
            ],
            registered: write),
        Row(
            name: "a connection opened again on the number is no connection until its first exchange",
            events: [.opened, .established, .watch(read), .remove, .opened, .watch(read), .remove],
            changes: [
                .none, .none, .watch(events: read, believedRegistered: false), .none, .none,
                .watch(events: read, believedRegistered: false), .forget
            ],
            registered: nil)
    ]

    @Test(arguments: rows)
    func eachEventMakesItsChange(_ row: Row) {
        let (registration, changes) = Self.registration(after: row.events)
        #expect(changes == row.changes)
        #expect(registration.events == row.registered)
    }

    /// The registrations whose word the loop takes that nothing waits on an idle connection
    /// (`MultiSocketWatch.idleConnectionIsQuiet`): a connection's socket kept for reading, and
    /// none that a wait found ready, that waits for writing, or that is no connection's.
    @Test(arguments: [
        ([Event.opened, .established, .watch(read), .remove], true),
        ([.opened, .established, .watch(read), .remove, .watch(read), .remove], true),
        ([.opened, .established, .watch(read), .remove, .readyWithoutInterest], false),
        ([.opened, .established, .watch(both), .remove], false),
        ([.opened, .established, .watch(read), .remove, .watch(both)], false),
        ([.opened, .established, .watch(read), .remove, .closing], false),
        ([.opened, .watch(read), .remove], false),
        ([.watch(read)], false)
    ])
    func anIdleConnectionKeptForReadingIsOneTheSetAnswersFor(_ events: [Event], answers: Bool) {
        #expect(Self.registration(after: events).registration.isIdleConnectionForReading == answers)
    }

    /// A new registration after `events`, with the change each made.
    static func registration(
        after events: [Event]
    ) -> (registration: EpollRegistration, changes: [EpollRegistration.Change]) {
        var registration = EpollRegistration()
        var changes: [EpollRegistration.Change] = []
        for event in events {
            switch event {
            case .opened:
                registration.connectionOpened()
                changes.append(.none)
            case .established:
                registration.connectionEstablished()
                changes.append(.none)
            case .closing: changes.append(registration.connectionClosing())
            case .watch(let events): changes.append(registration.libcurlWatches(events))
            case .remove: changes.append(registration.libcurlWatches(nil))
            case .readyWithoutInterest: changes.append(registration.readyWithoutInterest())
            }
        }
        return (registration, changes)
    }
}
