import CCurl

/// What the libcurl Connect runs on can do, read from the library itself, not from the headers
/// Connect was built with: a system libcurl is replaced under a built app, and two builds of one
/// version differ (Debian's libcurl 8 speaks HTTP/3 in its GnuTLS flavour, not in its OpenSSL one).
struct LibcurlFeatures: Sendable {
    /// Whether it speaks HTTP/3 (built with ngtcp2 and nghttp3, or quiche).
    let hasHTTP3: Bool
    /// libcurl's own description: its version, then its TLS and protocol libraries'
    /// (`libcurl/8.14.1 GnuTLS/3.7.9 … nghttp2/1.52.0 ngtcp2/1.11.0 nghttp3/1.8.0`).
    let description: String

    /// Whether its TLS library is OpenSSL, whose certificate verification results
    /// `CURLINFO_SSL_VERIFYRESULT` gives (another library's mean something else).
    var tlsLibraryIsOpenSSL: Bool {
        description.split(separator: " ").dropFirst().first?.hasPrefix("OpenSSL") ?? false
    }

    /// The libcurl this process runs on.
    static let running = LibcurlFeatures(
        hasHTTP3: ccurl_running_has_http3() != 0, description: String(cString: curl_version()))
}
