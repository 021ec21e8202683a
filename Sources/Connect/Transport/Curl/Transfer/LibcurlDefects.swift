import CCurl

/// The known defects of the libcurl Connect runs on that Connect works around, read from the
/// version the library reports (not the headers it was built with: a system libcurl is updated
/// under a built app).
///
/// Each defect is a plain question of the version, so the workaround it selects is tested on
/// every version at once (`LibcurlDefectsTests`) while the transport runs on the one installed.
struct LibcurlDefects: Equatable {
    /// libcurl's version as `0xXXYYZZ` (major, minor, patch).
    let version: UInt32

    /// The libcurl this process runs on.
    static let running = LibcurlDefects(version: UInt32(ccurl_running_version()))

    /// libcurl 7.83.0 (the headers API) to 8.0.x keep a pointer to the last response header a
    /// handle stored after freeing the stored headers at the next transfer's start (curl
    /// #11101, fixed in 8.1.0). A response whose first header line is a folded one (starting
    /// with a space or tab) then makes libcurl extend that freed header: a double free, inside
    /// libcurl, before any callback of Connect's runs. A handle that never ran a transfer is
    /// safe, and so is a transfer whose answers come as HTTP/2 frames alone
    /// (``answersComeAsHTTP2FramesOnly(_:isHTTPS:throughProxy:opensWebSocket:)``) or whose head
    /// lines the write callback sees first and refuses that line among (``HeadScreen``): on
    /// these versions every other transfer gets a fresh easy handle.
    var keepsFreedHeaderAcrossTransfers: Bool {
        version >= 0x07_53_00 && version < 0x08_01_00
    }

    /// libcurl before 8.0.0 reuses an idle connection with bytes waiting on it, so a second,
    /// unrequested response sent on it is read as the answer to the next request. From 8.0.0
    /// (curl `7c5637b`) libcurl polls an idle connection before it reuses it and closes one with
    /// input waiting (`Curl_conn_is_alive`'s `input_pending`), so only the older versions need
    /// ``ConnectionChoice`` to look for such bytes (a system call a request).
    var reusesConnectionsWithBytesWaiting: Bool {
        version < 0x08_00_00
    }

    /// libcurl from 8.8.0 starts a transfer's connect timeout when it sets the transfer up
    /// (`MSTATE_SETUP`), before the transfer waits in its queue for a connection
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS`); 7.88 to 8.7 start it as the transfer leaves the queue
    /// (`MSTATE_CONNECT`). On these versions the loop moves the connect timeout on while a
    /// transfer waits (``QueuedConnectClock``), so that the wait does not use it up.
    var countsQueueWaitInConnectTimeout: Bool {
        version >= 0x08_08_00
    }

    /// Whether every answer a transfer reads comes as HTTP/2 frames, so that a handle that ran
    /// a transfer before is safe for it where libcurl ``keepsFreedHeaderAcrossTransfers``: the
    /// first header libcurl stores from an HTTP/2 answer is its `:status` (7.88 `http2.c`),
    /// which sets the stale pointer again, and HTTP/2 has no folded lines. That is h2c with prior
    /// knowledge on `http` (its first request opens the connection speaking HTTP/2, the others
    /// go out only on such a connection: see ``PriorKnowledgeConnections``), not through a
    /// proxy (a proxy answers over HTTP/1.1), and not a WebSocket opening (HTTP/1.1). On `https`
    /// the TLS handshake may choose HTTP/1.1.
    static func answersComeAsHTTP2FramesOnly(
        _ version: HTTPVersionPolicy.Choice, isHTTPS: Bool, throughProxy: Bool, opensWebSocket: Bool
    ) -> Bool {
        version == .http2WithPriorKnowledge && !isHTTPS && !throughProxy && !opensWebSocket
    }

    /// The version as text, "7.88.1".
    var versionText: String {
        "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)"
    }
}
