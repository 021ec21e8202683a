import Foundation
import FuzzSupport

@testable import ConnectWire

/// HTTP dates against Foundation's formatter: any instant Foundation writes as an IMF-fixdate,
/// Connect reads back to the same second; any text Connect reads, written back by Foundation,
/// reads again to the same instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPDate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let text = String(decoding: bytes, as: UTF8.self)
    // Foundation's calendar is Julian before October 1582, HTTP's Gregorian throughout: the
    // two are compared from 1601 on.
    // A leap second (:60) on the last day of 9999 reads as an instant past the last year an
    // HTTP date can write; those are left out as well.
    if let date = HTTPDate.date(from: text), date.timeIntervalSince1970 >= -11_644_473_600,
        date.timeIntervalSince1970 <= 253_402_300_799
    {
        let written = formatter.string(from: date)
        require(
            HTTPDate.date(from: written) == date,
            "\(text.debugDescription) read as \(date), written \(written), read back differently")
        require(formatter.date(from: written) == date, "Foundation reads \(written) differently")
    }
    if count >= 8 {
        // An instant between 1900 and 9999, written by Foundation.
        var raw: UInt64 = 0
        for byte in bytes.prefix(8) { raw = raw << 8 | UInt64(byte) }
        let low = -2_208_988_800.0, high = 253_402_300_799.0
        let seconds = (low + Double(raw % UInt64(high - low))).rounded(.down)
        let date = Date(timeIntervalSince1970: seconds)
        let written = formatter.string(from: date)
        require(
            HTTPDate.date(from: written) == date,
            "Foundation's \(written) read as \(String(describing: HTTPDate.date(from: written)))")
    }
    return 0
}

nonisolated(unsafe) let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter
}()
