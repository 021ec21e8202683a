import CCurl

/// A libcurl easy handle and its error buffer; reused across transfers by the transfer loop.
/// Used by the transfer thread only.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    /// libcurl writes a readable message here when a transfer fails.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// Holds the options of a plain transfer (see ``CurlTransfer/isPlain``) and nothing else, so
    /// another plain transfer needs only its own few options: no reset, no common options again.
    var holdsPlainSetup = false

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(to: 0)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Clears every option for the next transfer; open connections and caches are kept by the
    /// multi handle.
    func reset() {
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        holdsPlainSetup = false
    }

    func set(_ option: CURLoption, _ value: Int) {
        ccurl_easy_setopt_long(raw, option, value)
    }

    func set(_ option: CURLoption, offset value: curl_off_t) {
        ccurl_easy_setopt_off_t(raw, option, value)
    }

    func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options.
        ccurl_easy_setopt_string(raw, option, value)
    }

    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) {
        ccurl_easy_setopt_pointer(raw, option, value)
    }

    func set(_ option: CURLoption, slist value: UnsafeMutablePointer<curl_slist>?) {
        ccurl_easy_setopt_slist(raw, option, value)
    }

    func setDataCallback(_ option: CURLoption, _ callback: ccurl_data_callback) {
        ccurl_easy_setopt_data_callback(raw, option, callback)
    }

    func infoLong(_ info: CURLINFO) -> Int {
        var value = 0
        ccurl_easy_getinfo_long(raw, info, &value)
        return value
    }

    func infoOffset(_ info: CURLINFO) -> curl_off_t {
        var value: curl_off_t = 0
        ccurl_easy_getinfo_off_t(raw, info, &value)
        return value
    }

    /// A `*_TIME_T` info, which libcurl gives in microseconds.
    func infoDuration(_ info: CURLINFO) -> Duration {
        .microseconds(infoOffset(info))
    }

    func infoString(_ info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        ccurl_easy_getinfo_string(raw, info, &value)
        return value.map { String(cString: $0) }
    }

    /// The error buffer's text, or libcurl's generic text for `code`.
    func errorMessage(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    }
}
