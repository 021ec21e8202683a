import CCurl

/// `curl_global_init` must run once per process before any other thread uses libcurl.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    static func initialize() {
        _ = initialized
    }
}
