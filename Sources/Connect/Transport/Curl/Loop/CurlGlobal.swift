import CCurl

/// `curl_global_init` must run once per process before any other thread uses libcurl; the C
/// shim's `ccurl_global_init` also gives libcurl its allocation functions (see there).
enum CurlGlobal {
    private static let initialized: Bool = ccurl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    static func initialize() {
        _ = initialized
    }
}
