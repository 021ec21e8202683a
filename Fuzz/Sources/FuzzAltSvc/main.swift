import FuzzSupport

@testable import Connect

/// `Alt-Svc` field values as an origin may send them, and alt-svc cache files as curl or a hand
/// may write them: an alternative read has a port of 1 to 65535, a host that is no empty string
/// and holds no blank, quote or slash, and an `ma` within 0 to 2³¹; the table they fill offers only an
/// alternative that holds, writes a file that reads back as the same table, and a broken
/// alternative is not offered again. The input's first line is the field, the rest the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAltSvc(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let value = String(text.prefix { $0 != "\n" })
    let field = AltSvcField(value)
    require(!field.clears || field.alternatives.isEmpty, "\(value.debugDescription) clears and names alternatives")
    require(field.alternatives.count <= AltSvcField.maximumAlternatives, "\(value.debugDescription): too many")
    for alternative in field.alternatives {
        require((1...65535).contains(alternative.port), "\(value.debugDescription) read the port \(alternative.port)")
        require((0...AltSvcField.largestMaxAge).contains(alternative.maxAge), "\(value.debugDescription): ma")
        if let host = alternative.host {
            require(
                !host.isEmpty && !host.contains(where: { " \"/\t@".contains($0) }),
                "\(value.debugDescription) read the host \(host.debugDescription)")
        }
    }
    let now = 1_800_000_000
    let origin = AlternativeServiceTable.Origin(host: "example.com", port: 443)
    var table = AlternativeServiceTable(file: String(text.drop { $0 != "\n" }), now: now)
    table.record(field, from: origin, now: now)
    let again = AlternativeServiceTable(file: table.fileText(now: now), now: now)
    require(again == table, "\(text.debugDescription): the file reads back as another table")
    if let alternative = table.alternative(for: origin, now: now) {
        require(alternative.expires > now, "\(text.debugDescription) offered an expired alternative")
        table.markBroken(alternative, of: origin, now: now)
        require(
            table.alternative(for: origin, now: now) != alternative,
            "\(text.debugDescription) offered a broken alternative")
    }
    return 0
}
