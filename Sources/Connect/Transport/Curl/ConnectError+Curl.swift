import CCurl

extension ConnectError {
    /// The case for a failed libcurl transfer.
    init(curlCode code: CURLcode, message: String, requestSent: Bool) {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timedOut(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CLIENTCERT,
            CURLE_USE_SSL_FAILED:
            self = .tls(code: Int(code.rawValue), message: message)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            self = .invalidRequest(message)
        default:
            self = .transport(code: Int(code.rawValue), message: message, requestSent: requestSent)
        }
    }
}
