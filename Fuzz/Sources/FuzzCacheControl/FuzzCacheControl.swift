import FuzzSupport

@testable import Connect

/// `Cache-Control` and the fields a cache reckons freshness from, as a server may send them:
/// the directives read back the same once written out again, delta-seconds stay within 0 to 2³¹,
/// freshness, age and the use of a stored response come out whatever the fields say, and a
/// `Vary` variant answers its own request. The input's lines are `Cache-Control` (and `Vary`),
/// `Age`, `Date`, `Expires` and `Last-Modified` in turn.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCacheControl(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let value = lines.first ?? ""
    let directives = CacheControl.directives(in: value)
    for (name, _) in directives {
        require(!name.isEmpty && name == name.lowercased(), "\(value.debugDescription) read the name \(name)")
    }
    // Written out again (each argument quoted), the directives read back the same.
    let written = directives.map { name, argument in
        argument.map { name + "=" + quoted($0) } ?? name
    }.joined(separator: ", ")
    let again = CacheControl.directives(in: written)
    require(
        again.map { $0.name } == directives.map { $0.name }
            && again.map { $0.argument } == directives.map { $0.argument },
        "\(value.debugDescription) wrote \(written.debugDescription), which reads differently")
    let control = CacheControl(value)
    for seconds in [control.maxAge, control.minFresh, control.staleIfError, control.staleWhileRevalidate] {
        if let seconds { require((0...CacheControl.largestSeconds).contains(seconds), "\(value.debugDescription)") }
    }
    let names = ["Cache-Control", "Age", "Date", "Expires", "Last-Modified"]
    let headers = zip(names, lines).map { HTTPHeader(name: $0, value: $1) }
    let now = 1_704_067_200
    let freshness = CacheFreshness(
        status: 200, headers: headers, requestTime: now - 2, responseTime: now, now: now + 30)
    require(freshness.lifetime >= 0 && freshness.age >= 30, "\(text.debugDescription): \(freshness)")
    _ = CachedResponseUse.decide(freshness: freshness, response: control, request: CacheControl(lines.last ?? ""))
    _ = CacheStorability.decide(method: "GET", requestHeaders: [], status: 200, headers: headers)
    // The first line as a Vary field: a variant always answers the request it was stored for.
    let vary = CacheVariant.varyingFields(of: [HTTPHeader(name: "Vary", value: value)])
    let request = zip(vary, lines.dropFirst()).map { HTTPHeader(name: $0, value: $1) }
    require(
        vary.contains("*") || CacheVariant.matches(vary: vary, storedRequestHeaders: request, requestHeaders: request),
        "\(value.debugDescription) as Vary does not match its own request")
    return 0
}

/// `text` as a quoted-string: a backslash before each quote and backslash. By Unicode scalar,
/// as the field is read: a quote followed by a combining mark is one `Character` that is not
/// `"`, and left unescaped it would end the string.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        if scalar == "\"" || scalar == "\\" { result.unicodeScalars.append("\\") }
        result.unicodeScalars.append(scalar)
    }
    return result + "\""
}
