import Foundation
import Testing

@testable import ConnectWire

/// HTTP dates in `Retry-After`, without a socket: the three formats RFC 9110 §5.6.7 has a
/// recipient accept, and the dates that are not dates.
@Suite("HTTP dates")
struct HTTPDateTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
        ("Sun Nov  6 08:49:37 1994", 784_111_777),
        ("Sun Nov 06 08:49:37 1994", 784_111_777),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        ("Thu, 29 Feb 2024 00:00:00 GMT", 1_709_164_800),
        ("Fri, 31 Dec 9999 23:59:59 GMT", 253_402_300_799),
        ("Sat, 31 Dec 2016 23:59:60 GMT", 1_483_228_800),  // a leap second, the next instant
        ("Thursday, 01-Jan-30 00:00:00 GMT", 1_893_456_000),  // 2030: within 50 years of now
        ("Friday, 01-Jan-77 00:00:00 GMT", 220_924_800)  // 2077 is too far ahead: 1977
    ])
    func readsEachFormat(text: String, secondsSince1970: Double) {
        #expect(HTTPDate.date(from: text, now: Self.now) == Date(timeIntervalSince1970: secondsSince1970))
    }

    @Test(arguments: [
        "", "GMT", "1994-11-06T08:49:37Z", "784111777",
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994 08:49:37", "Sun 06 Nov 1994 08:49:37 GMT",
        "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT", "Sun, 06 November 1994 08:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sunday, 06 Nov 1994 08:49:37 GMT",
        "Sun, 31 Apr 1994 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 1994 08:49:61 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37:00 GMT",
        "Sun, +6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov -994 08:49:37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 UTC",
        "Sun Nov 6 08:49:37 94", "Sun Nov 123 08:49:37 1994", "Sunday Nov  6 08:49:37 1994",
        // One space between fields, but asctime's padding before a one-digit day.
        "Thu, 18  Aug  2050 02:01:18 GMT", " Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ",
        "Sunday,  06-Nov-94 08:49:37 GMT", "Sun Nov  16 08:49:37 1994", "Sun  Nov 6 08:49:37 1994"
    ])
    func refusesWhatIsNotAnHTTPDate(text: String) {
        #expect(HTTPDate.date(from: text, now: Self.now) == nil, "\(text.debugDescription) was read")
    }

    @Test(arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017), (1600, 1, 1, -135_140),
        (2400, 12, 31, 157_419)
    ])
    func daysSince1970(year: Int, month: Int, day: Int, days: Int) {
        #expect(HTTPDate.daysSince1970(year: year, month: month, day: day) == days)
    }

    /// Instants from 1900 to 2200, written by Foundation's `DateFormatter` in all three formats,
    /// read back to the second.
    @Test func readsWhatDateFormatterWrites() {
        func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        }
        let imf = formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'")
        let rfc850 = formatter("EEEE, dd-MMM-yy HH:mm:ss 'GMT'")
        let asctime = formatter("EEE MMM d HH:mm:ss yyyy")
        var seconds: Int64 = -2_208_988_800  // 1900-01-01
        while seconds < 7_258_118_400 {  // 2200-01-01
            let date = Date(timeIntervalSince1970: Double(seconds))
            #expect(HTTPDate.date(from: imf.string(from: date)) == date, "\(imf.string(from: date))")
            let padded = asctime.string(from: date).split(separator: " ", omittingEmptySubsequences: false)
            let asctimeText =
                padded[2].count == 1
                ? padded[0...1].joined(separator: " ") + "  " + padded[2...].joined(separator: " ")
                : padded.joined(separator: " ")
            #expect(HTTPDate.date(from: asctimeText) == date, "\(asctimeText)")
            // A two-digit year stands for the one within 50 years ahead of now, or before.
            let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "GMT")!, from: date)
                .year!
            if (Self.thisYear - 49)...(Self.thisYear + 50) ~= year {
                #expect(HTTPDate.date(from: rfc850.string(from: date)) == date, "\(rfc850.string(from: date))")
            }
            seconds += 7_919_113  // about three months and a few hours: every month, weekday and hour comes up
        }
    }

    static let thisYear = Calendar(identifier: .gregorian).dateComponents(
        in: TimeZone(identifier: "GMT")!, from: Date()
    ).year!
}
