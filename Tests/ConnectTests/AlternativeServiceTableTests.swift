import Testing

@testable import Connect

/// `Alt-Svc` field values read (RFC 7838 §3), and the table of HTTP/3 alternatives they fill:
/// what is kept, which alternative a request goes to, what a failure does, and the file.
struct AlternativeServiceTableTests {
    typealias Alternative = AltSvcField.Alternative

    static func h3(
        _ port: Int, host: String? = nil, maxAge: Int = AltSvcField.defaultMaxAge, persists: Bool = false
    )
        -> Alternative
    {
        Alternative(protocolID: "h3", host: host, port: port, maxAge: maxAge, persists: persists)
    }

    struct FieldCase: Sendable, CustomStringConvertible {
        let value: String
        let clears: Bool
        let alternatives: [Alternative]
        init(_ value: String, clears: Bool = false, _ alternatives: [Alternative]) {
            self.value = value
            self.clears = clears
            self.alternatives = alternatives
        }
        var description: String { value.debugDescription }
    }

    @Test(arguments: [
        FieldCase(#"h3=":443""#, [h3(443)]),
        FieldCase(
            #"h3=":8443"; ma=3600, h3-29=":8443"; ma=3600"#,
            [
                h3(8443, maxAge: 3600),
                Alternative(protocolID: "h3-29", host: nil, port: 8443, maxAge: 3600, persists: false)
            ]),
        FieldCase(
            #"h3="alt.example.com:443"; ma=60; persist=1"#,
            [h3(443, host: "alt.example.com", maxAge: 60, persists: true)]),
        FieldCase(#"h3="ALT.Example.COM:443""#, [h3(443, host: "alt.example.com")]),
        FieldCase(#"h3="[::1]:443""#, [h3(443, host: "::1")]),
        FieldCase(#"h3="192.0.2.7:443";ma=0"#, [h3(443, host: "192.0.2.7", maxAge: 0)]),
        FieldCase(#"h3=":443"; ma="120""#, [h3(443, maxAge: 120)]),
        FieldCase(#"h3=":443"; MA=120; other="x;y, z""#, [h3(443, maxAge: 120)]),
        FieldCase(#"h3=":443"; ma=abc"#, [h3(443)]),
        FieldCase(#"h3=":443"; ma=99999999999999999999"#, [h3(443, maxAge: AltSvcField.largestMaxAge)]),
        FieldCase(
            #"w%3Dx%3Ay=":443""#,
            [Alternative(protocolID: "w=x:y", host: nil, port: 443, maxAge: 86_400, persists: false)]),
        FieldCase("clear", clears: true, []),
        FieldCase("  clear ", clears: true, []),
        // What cannot name an alternative is left out, the others kept.
        FieldCase(#"h3=":443", clear"#, [h3(443)]),
        FieldCase(#"h3=443, h3=":444""#, [h3(444)]),
        FieldCase(#"h3=":0", h3=":65536", h3=":-1", h3=":", h3="", h3=":123456""#, []),
        FieldCase(#"h3="[::1:443", h3="a b:443", h3="a@b:443", h3="a,b:443""#, []),
        FieldCase(#"h3="evil.com\":443""#, []),
        FieldCase(#"h3%2=":443", =":443", h 3=":443""#, []),
        FieldCase(#"h3=":443"#, []),
        FieldCase("", []),
        FieldCase(
            Array(repeating: #"h3=":443""#, count: 20).joined(separator: ", "), Array(repeating: h3(443), count: 16))
    ])
    func fieldValues(_ row: FieldCase) {
        let field = AltSvcField(row.value)
        #expect(field.clears == row.clears)
        #expect(field.alternatives == row.alternatives)
    }

    static let origin = AlternativeServiceTable.Origin(host: "example.com", port: 443)
    static let now = 1_800_000_000

    @Test func anOriginsH3AlternativeIsKeptUntilItExpires() {
        var table = AlternativeServiceTable()
        let changed1 = table.record(
            AltSvcField(#"h2="other:443", h3=":8443"; ma=60"#), from: Self.origin, now: Self.now)
        #expect(changed1)
        let alternative = table.alternative(for: Self.origin, now: Self.now)
        #expect(alternative == .init(host: "example.com", port: 8443, expires: Self.now + 60))
        #expect(table.alternative(for: Self.origin, now: Self.now + 59) != nil)
        #expect(table.alternative(for: Self.origin, now: Self.now + 60) == nil)
        #expect(table.alternative(for: .init(host: "example.com", port: 8443), now: Self.now) == nil)
        #expect(table.alternative(for: .init(host: "other.example", port: 443), now: Self.now) == nil)
    }

    @Test func aFieldReplacesWhatItsOriginAdvertisedAndClearEmptiesIt() {
        var table = AlternativeServiceTable()
        table.record(AltSvcField(#"h3=":8443""#), from: Self.origin, now: Self.now)
        table.record(AltSvcField(#"h3="alt.example.com:443""#), from: Self.origin, now: Self.now + 1)
        #expect(table.alternative(for: Self.origin, now: Self.now + 1)?.host == "alt.example.com")
        let changed2 = table.record(AltSvcField("clear"), from: Self.origin, now: Self.now + 2)
        #expect(changed2)
        #expect(table.alternative(for: Self.origin, now: Self.now + 2) == nil && table.alternatives.isEmpty)
        // Only h2 alternatives, or an h3 one that holds for no time: nothing kept.
        table.record(AltSvcField(#"h2=":444", h3=":8443"; ma=0"#), from: Self.origin, now: Self.now)
        #expect(table.alternatives.isEmpty)
    }

    /// A field that repeats on every response changes the file only when the alternatives change
    /// or their expiry moves by more than a tenth of their lifetime.
    @Test func whatChangesTheFile() {
        var table = AlternativeServiceTable()
        let field = AltSvcField(#"h3=":8443"; ma=86400"#)
        let changed3 = table.record(field, from: Self.origin, now: Self.now)
        #expect(changed3)
        let changed4 = table.record(field, from: Self.origin, now: Self.now + 60)
        #expect(!changed4)
        let changed5 = table.record(field, from: Self.origin, now: Self.now + 9_000)
        #expect(changed5)
        let changed6 = table.record(AltSvcField(#"h3=":8444"; ma=86400"#), from: Self.origin, now: Self.now + 9_000)
        #expect(changed6)
        let changed7 = table.record(
            AltSvcField(#"h3=":8444"; ma=86400; persist=1"#), from: Self.origin, now: Self.now + 9_000)
        #expect(changed7)
    }

    /// A broken alternative is not tried until it expires, however often its origin advertises
    /// it again; another alternative of the origin still is.
    @Test func aBrokenAlternativeIsNotTriedUntilItExpires() throws {
        var table = AlternativeServiceTable()
        table.record(AltSvcField(#"h3=":8443"; ma=600, h3=":9443"; ma=300"#), from: Self.origin, now: Self.now)
        let first = try #require(table.alternative(for: Self.origin, now: Self.now))
        #expect(first.port == 8443)
        table.markBroken(first, of: Self.origin, now: Self.now + 1)
        #expect(table.alternative(for: Self.origin, now: Self.now + 1)?.port == 9443)
        let second = try #require(table.alternative(for: Self.origin, now: Self.now + 1))
        table.markBroken(second, of: Self.origin, now: Self.now + 2)
        #expect(table.alternative(for: Self.origin, now: Self.now + 2) == nil)
        table.record(AltSvcField(#"h3=":8443"; ma=3600"#), from: Self.origin, now: Self.now + 10)
        #expect(table.alternative(for: Self.origin, now: Self.now + 10) == nil)
        #expect(table.alternative(for: Self.origin, now: Self.now + 599) == nil)
        #expect(table.alternative(for: Self.origin, now: Self.now + 600)?.port == 8443)
    }

    @Test func theMostOriginsKeptEvictTheSoonestExpiring() {
        var table = AlternativeServiceTable()
        for index in 0..<AlternativeServiceTable.maximumOrigins {
            table.record(
                AltSvcField(#"h3=":443"; ma=\#(1_000 + index)"#), from: .init(host: "h\(index)", port: 443),
                now: Self.now)
        }
        table.record(AltSvcField(#"h3=":443""#), from: .init(host: "new", port: 443), now: Self.now)
        #expect(table.alternatives.count == AlternativeServiceTable.maximumOrigins)
        #expect(table.alternative(for: .init(host: "h0", port: 443), now: Self.now) == nil)
        #expect(table.alternative(for: .init(host: "h1", port: 443), now: Self.now) != nil)
        #expect(table.alternative(for: .init(host: "new", port: 443), now: Self.now) != nil)
    }

    @Test(arguments: [
        (0, "19700101 00:00:00"), (951_782_400, "20000229 00:00:00"), (1_798_761_599, "20261231 23:59:59"),
        (4_107_542_400, "21000301 00:00:00"), (86_399, "19700101 23:59:59")
    ])
    func stamps(seconds: Int, text: String) {
        #expect(AlternativeServiceTable.stamp(seconds) == text)
    }

    /// The file reads back as it was written, and a file curl wrote reads: its h3 lines that
    /// have not expired, IPv6 hosts without brackets; comments, other protocols and lines that
    /// do not read are skipped.
    @Test func theFile() {
        var table = AlternativeServiceTable()
        table.record(AltSvcField(#"h3=":8443"; ma=600; persist=1"#), from: Self.origin, now: Self.now)
        table.record(AltSvcField(#"h3="[::1]:443"; ma=60"#), from: .init(host: "::1", port: 8443), now: Self.now)
        let text = table.fileText(now: Self.now)
        #expect(text.contains(#"h2 example.com 443 h3 example.com 8443 "20270115 08:10:00" 1 0"#), "\(text)")
        #expect(text.contains("h2 [::1] 8443 h3 [::1] 443 "))
        #expect(AlternativeServiceTable(file: text, now: Self.now) == table)
        #expect(AlternativeServiceTable(file: text, now: Self.now + 60).alternatives.count == 1)

        let curls = """
            # Your alt-svc cache. https://curl.se/docs/alt-svc.html
            # This file was generated by libcurl! Edit at your own risk.
            h2 curl.se 443 h3 curl.se 443 "20270115 08:10:00" 0 0
            h1 Example.org 443 h3 alt.example.org 8443 "20270115 08:10:00" 0 0
            h1 example.net 443 h2 example.net 443 "20270115 08:10:00" 0 0
            h2 old.example 443 h3 old.example 443 "20200101 00:00:00" 0 0
            h2 bad.example 99999 h3 bad.example 443 "20270115 08:10:00" 0 0
            h2 bad.example 443 h3 bad.example 443 "2027-01-15 08:10:00" 0 0
            h2 short.example 443 h3
            """
        let read = AlternativeServiceTable(file: curls, now: Self.now)
        #expect(read.alternatives.count == 2)
        #expect(read.alternative(for: .init(host: "curl.se", port: 443), now: Self.now)?.port == 443)
        #expect(
            read.alternative(for: .init(host: "example.org", port: 443), now: Self.now)
                == .init(host: "alt.example.org", port: 8443, expires: 1_800_000_600))
    }
}
