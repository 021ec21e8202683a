import Foundation
import Testing

@testable import Connect

/// Which connection may carry one more exchange, and which libcurl defects the transport works
/// around on which versions, without a socket. The wire behaviour is in `ResponseIntegrityTests`.
@Suite("Connection sharing and libcurl defects")
struct ConnectionSharingTests {
    struct SharingCase: Sendable, CustomStringConvertible {
        var inFlight: Int
        var proven = false
        var claimSeen = false
        var allowed: Bool
        var description: String {
            "\(inFlight) in flight, proven \(proven), HTTP/2 claim seen \(claimSeen) → \(allowed)"
        }
    }

    @Test(arguments: [
        // An idle connection takes any exchange.
        SharingCase(inFlight: 0, allowed: true),
        SharingCase(inFlight: 0, claimSeen: true, allowed: true),
        // Until a head lied, libcurl shares only connections that agreed on HTTP/2.
        SharingCase(inFlight: 1, allowed: true),
        SharingCase(inFlight: 12, allowed: true),
        // After a lie, a busy connection multiplexes only when it proved it (h2c, or a head
        // decoded from HTTP/2 frames).
        SharingCase(inFlight: 1, claimSeen: true, allowed: false),
        SharingCase(inFlight: 5, claimSeen: true, allowed: false),
        SharingCase(inFlight: 1, proven: true, claimSeen: true, allowed: true),
        SharingCase(inFlight: 7, proven: true, claimSeen: true, allowed: true),
        SharingCase(inFlight: 1, proven: true, allowed: true)
    ])
    func anotherExchange(_ row: SharingCase) {
        #expect(
            ConnectionSharing.allowsAnotherExchange(
                inFlight: row.inFlight, multiplexingProven: row.proven, sawHTTP2Claim: row.claimSeen)
                == row.allowed)
    }

    @Test(arguments: [
        (0x07_47_00, false),  // 7.71.0: no headers API
        (0x07_51_00, false),  // 7.81.0, Ubuntu 22.04
        (0x07_52_00, false),  // 7.82.0
        (0x07_53_00, true),  // 7.83.0: the headers API, and the stale pointer
        (0x07_58_01, true),  // 7.88.1, Debian 12
        (0x08_00_01, true),  // 8.0.1
        (0x08_01_00, false),  // 8.1.0: fixed (curl #11101)
        (0x08_05_00, false),  // 8.5.0, Ubuntu 24.04
        (0x08_0E_01, false)  // 8.14.1
    ])
    func freshHandlesOnVersionsThatKeepAFreedHeader(_ version: Int, _ affected: Bool) {
        let defects = LibcurlDefects(version: UInt32(version))
        #expect(defects.keepsFreedHeaderAcrossTransfers == affected, "\(defects.versionText)")
    }

    /// libcurl 8.0.0 closes an idle connection with input waiting before it reuses one (curl
    /// `7c5637b`); older versions read those bytes as the next answer, so Connect looks for them.
    @Test(arguments: [
        (0x07_47_00, true),  // 7.71.0
        (0x07_58_01, true),  // 7.88.1, Debian 12
        (0x07_58_FF, true),
        (0x08_00_00, false),  // 8.0.0: fixed
        (0x08_00_01, false),  // 8.0.1
        (0x08_0E_01, false)  // 8.14.1
    ])
    func strayBytesAreLookedForWhereLibcurlReusesSuchConnections(_ version: Int, _ affected: Bool) {
        let defects = LibcurlDefects(version: UInt32(version))
        #expect(defects.reusesConnectionsWithBytesWaiting == affected, "\(defects.versionText)")
    }

    /// libcurl 8.8.0 starts a transfer's connect timeout when it sets the transfer up, before
    /// its wait in the queue for a connection (8.7.1 `multi.c` starts it in `MSTATE_CONNECT`,
    /// 8.8.0 in `MSTATE_SETUP`), so the loop moves the timeout on while the transfer waits.
    @Test(arguments: [
        (0x07_58_01, false),  // 7.88.1, Debian 12
        (0x08_07_01, false),  // 8.7.1
        (0x08_08_00, true),  // 8.8.0
        (0x08_0E_01, true)  // 8.14.1, Debian 12's backports
    ])
    func connectTimeoutsAreMovedOnWhereLibcurlCountsTheQueue(_ version: Int, _ affected: Bool) {
        let defects = LibcurlDefects(version: UInt32(version))
        #expect(defects.countsQueueWaitInConnectTimeout == affected, "\(defects.versionText)")
    }

    @Test func versionText() {
        #expect(LibcurlDefects(version: 0x07_58_01).versionText == "7.88.1")
        #expect(LibcurlDefects(version: 0x08_0E_01).versionText == "8.14.1")
    }

    /// `make test-curl8` runs the suite on a second libcurl; this says it really did.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CONNECT_EXPECTED_LIBCURL_MAJOR"] != nil))
    func theRunningLibcurlIsTheOneTheRunAskedFor() throws {
        let expected = try #require(
            ProcessInfo.processInfo.environment["CONNECT_EXPECTED_LIBCURL_MAJOR"].flatMap { UInt32($0) })
        #expect(
            LibcurlDefects.running.version >> 16 == expected, "running libcurl \(LibcurlDefects.running.versionText)")
    }
}
